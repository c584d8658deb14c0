//! The one clock every layer times with: `std::time::Instant` natively, the browser's
//! `performance.now()` on the web (through `web-time`, which is `std::time` re-exported where
//! that works).

pub use web_time::Instant;
