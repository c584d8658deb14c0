//! `rendermm demo`: the demos' own command line lives with them (`rendermm::demo::DemoArgs`);
//! this only hands the arguments over.

use anyhow::Result;
use rendermm::demo::DemoArgs;

/// Run `rendermm demo`.
pub fn run(args: DemoArgs) -> Result<()> {
    Ok(rendermm::demo::run(args)?)
}
