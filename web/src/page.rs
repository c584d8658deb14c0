//! The page's elements the run writes to: the status, the canvas and its marks.

use super::*;

/// The page's elements the run writes to.
#[derive(Clone)]
pub(crate) struct Page {
    pub(crate) document: web_sys::Document,
}

impl Page {
    pub(crate) fn find() -> Self {
        let document = web_sys::window()
            .and_then(|w| w.document())
            .expect("the page has a document");
        Page { document }
    }

    pub(crate) fn set_text(&self, id: &str, text: &str) {
        if let Some(e) = self.document.get_element_by_id(id) {
            e.set_text_content(Some(text));
        }
    }

    pub(crate) fn status(&self, text: &str) {
        self.set_text("status", text);
    }

    /// What the run under way is doing, for the status: written at once where main.js shows the
    /// run's line already, else kept until it does ([`running_shown`]).
    pub(crate) fn running(&self, text: &str) {
        let shown = RUNNING.with(|r| {
            let mut r = r.borrow_mut();
            r.1 = text.to_string();
            r.0
        });
        if shown {
            self.status(text);
        }
    }

    /// Add a line to the status (below what it says).
    pub(crate) fn status_note(&self, text: &str) {
        if let Some(e) = self.document.get_element_by_id("status")
            && let Ok(p) = self.document.create_element("p")
        {
            p.set_class_name("ran");
            p.set_text_content(Some(text));
            let _ = e.append_child(&p);
        }
    }

    /// The status as HTML (words.rs builds it, every text escaped). main.js marks it passed or
    /// failed from the runs' reports (`data-passed`).
    pub(crate) fn status_html(&self, html: &str) {
        if let Some(e) = self.document.get_element_by_id("status") {
            e.set_inner_html(html);
        }
    }

    /// The 2D context of the canvas `#demo`, which shows the frames. Only ever a 2D context:
    /// the GPU draws offscreen, so one canvas serves every run on either backend.
    pub(crate) fn canvas2d(&self) -> Result<web_sys::CanvasRenderingContext2d> {
        let canvas: web_sys::HtmlCanvasElement = self
            .document
            .get_element_by_id("demo")
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| Error::Invalid("the page has no canvas #demo".into()))?;
        canvas.set_width(CANVAS.0);
        canvas.set_height(CANVAS.1);
        canvas
            .get_context("2d")
            .ok()
            .flatten()
            .and_then(|c| c.dyn_into().ok())
            .ok_or_else(|| Error::Invalid("the page's canvas gave no 2D context".into()))
    }

    /// Mark the canvas with the pass it shows (for tests).
    pub(crate) fn mark(&self, pass: usize, passes: usize) {
        if let Some(c) = self.document.get_element_by_id("demo") {
            let _ = c.set_attribute("data-pass", &pass.to_string());
            let _ = c.set_attribute("data-passes", &passes.to_string());
        }
    }
}

/// A JS promise resolved after `ms` milliseconds.
pub(crate) async fn sleep(ms: u32) {
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms as i32);
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// Resolve at the next turn of the event loop: a message the page posts to itself, which a
/// browser delivers at once (a timer waits 4 ms at least once timers nest, as a polling loop's
/// do). One waiter at a time: WebGL2's poller.
pub(crate) async fn next_turn() {
    thread_local! {
        static CHANNEL: Option<web_sys::MessageChannel> = web_sys::MessageChannel::new().ok();
    }
    let p = js_sys::Promise::new(&mut |resolve, _| {
        CHANNEL.with(|c| match c {
            Some(c) => {
                c.port1().set_onmessage(Some(&resolve));
                let _ = c.port2().post_message(&JsValue::NULL);
            }
            None => {
                if let Some(w) = web_sys::window() {
                    let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
                }
            }
        })
    });
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// Mark the canvas with where the demo is: running, replay, held, done.
pub(crate) fn canvas_state(page: &Page, state: &str) {
    if let Some(c) = page.document.get_element_by_id("demo") {
        let _ = c.set_attribute("data-state", state);
    }
}

thread_local! {
    /// What the status says of the run under way once main.js shows it ([`running_shown`]), and
    /// whether it shows it yet.
    static RUNNING: RefCell<(bool, String)> = const { RefCell::new((false, String::new())) };
    /// The last run's status, written with its result ([`show_status`]).
    static STATUS: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A run starts: the status keeps the last run's until main.js shows this one's line
/// ([`running_shown`]), 100 ms into the run. A quicker run changes nothing on the page but
/// `#result` and `#page-facts` (`pending`) until its result: a status rewritten at the start made
/// the browser lay out and paint the page in the middle of the product, which on WebGL2 held
/// back the page's poll of the finished product by milliseconds and kept the GPU process
/// compositing while the page read C back (headless Chromium 156, Chrome's tracing).
pub(crate) fn running_start() {
    RUNNING.with(|r| *r.borrow_mut() = (false, "running…".into()));
    STATUS.with(|s| s.borrow_mut().take());
}

/// The line the status shows for the run under way; from now on [`Page::running`] writes its
/// changes at once. main.js calls it once the run has gone on for 100 ms.
#[wasm_bindgen]
pub fn running_shown() -> String {
    RUNNING.with(|r| {
        let mut r = r.borrow_mut();
        r.0 = true;
        r.1.clone()
    })
}

/// Keep `html` as the status of the run that just ended, for [`show_status`]: main.js writes it
/// right after the result, in the same task (one layout, one paint for both).
pub(crate) fn status_with_result(html: String) {
    STATUS.with(|s| *s.borrow_mut() = Some(html));
}

/// Write the last run's status, where it has not been written yet.
#[wasm_bindgen]
pub fn show_status() {
    if let Some(html) = STATUS.with(|s| s.borrow_mut().take()) {
        Page::find().status_html(&html);
    }
}
