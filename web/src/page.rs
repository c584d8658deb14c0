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
