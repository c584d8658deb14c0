//! The CSV reader on arbitrary bytes: a matrix whose data matches its shape, or an error, never
//! a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rendermm::Error;

fuzz_target!(|data: &[u8]| {
    match rendermm::io::parse_csv(data) {
        Ok(m) => assert_eq!(Some(m.data.len()), m.rows.checked_mul(m.cols)),
        Err(e) => assert!(matches!(e, Error::Format { .. }), "{e:?}"),
    }
});
