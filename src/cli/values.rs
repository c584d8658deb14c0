//! Typed command-line values: a method, a precision, an accumulation mode, a bench suite and the
//! dtype of an output file, each a `clap::ValueEnum` so that `--help` lists the values.
//!
//! The library's enums keep their names (`Method::name()` reads the one table of methods); the
//! newtypes here only hand those names to clap, so no name is written twice. An unknown value
//! is refused by [`Named`] in the library's own words (`unknown method 'x'; known: ...`), as one
//! `error:` line with exit status 2.

use crate::bench::Suite;
use crate::check::Hold;
use crate::methods::{Accumulate, Method};
use crate::precision::Precision;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use clap::{Arg, Command, ValueEnum};
use std::ffi::OsStr;
use std::marker::PhantomData;

/// A newtype over a library enum with an `ALL` list and a `name()`, as a clap value: its
/// variants are the list in order, its value names are the library's names.
macro_rules! named_value {
    ($(#[$doc:meta])* $arg:ident($inner:ty), $all:expr, $help:expr) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $arg(pub $inner);

        impl $arg {
            const VARIANTS: [$arg; $all.len()] = {
                let mut v = [$arg($all[0]); $all.len()];
                let mut i = 0;
                while i < v.len() {
                    v[i] = $arg($all[i]);
                    i += 1;
                }
                v
            };
        }

        impl ValueEnum for $arg {
            fn value_variants<'a>() -> &'a [Self] {
                &Self::VARIANTS
            }
            fn to_possible_value(&self) -> Option<PossibleValue> {
                let help: Option<String> = $help(self.0);
                let value = PossibleValue::new(self.0.name());
                Some(match help {
                    Some(h) => value.help(h),
                    None => value,
                })
            }
        }

        impl std::fmt::Display for $arg {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.0.name())
            }
        }
    };
}

named_value!(
    /// `--method`: one row of the table of methods; `--help` shows each with its one line.
    MethodArg(Method),
    Method::ALL,
    |m: Method| Some(m.description())
);

named_value!(
    /// `--precision`: the number format of textures and framebuffer.
    PrecisionArg(Precision),
    Precision::ALL,
    |p: Precision| Some(
        match p {
            Precision::U8 => "8-bit unsigned normalized, saturating at 1.0 (2001)",
            Precision::F16 => "16-bit float",
            Precision::F32 => "32-bit float",
        }
        .to_string()
    )
);

named_value!(
    /// `--accumulate`: how Hall–Carr–Hart's passes carry the running sum.
    AccumulateArg(Accumulate),
    Accumulate::ALL,
    |a: Accumulate| Some(
        match a {
            Accumulate::PingPong => "two textures take turns",
            Accumulate::Blend => "additive blending into the framebuffer",
            Accumulate::Copy => "render, then copy the framebuffer into F (2003)",
        }
        .to_string()
    )
);

named_value!(
    /// `bench --suite`: a seed's own tables.
    SuiteArg(Suite),
    Suite::ALL,
    |s: Suite| Some(
        match s {
            Suite::Oneil => "O'Neil 2013 tables 1 and 2: Cannon and DNS at 8x8 and 16x16",
            Suite::Kk73 => "the 5kk73 optimization ladder beside the HIP blog's kernels",
        }
        .to_string()
    )
);

/// `multiply --out-dtype`: the number type C is stored in, in a .npy output.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, ValueEnum)]
pub enum OutDtype {
    /// float64 if either input is a float64 .npy file, else float32 (as numpy promotes).
    #[default]
    Inputs,
    /// float32, the type C is computed in.
    F32,
    /// float64 (C is still computed in float32; only the file is wider).
    F64,
}

impl std::fmt::Display for OutDtype {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.to_possible_value() {
            Some(v) => f.write_str(v.get_name()),
            None => Err(std::fmt::Error),
        }
    }
}

/// The value parser of a [`ValueEnum`] that refuses an unknown value as the library does:
/// `unknown WHAT 'x'; known: a, b, c` (one line), where clap's own parser writes several.
#[derive(Clone)]
pub struct Named<T> {
    what: &'static str,
    _values: PhantomData<T>,
}

/// The parser for values of `T`, calling an unknown one an unknown `what`.
pub fn named<T>(what: &'static str) -> Named<T> {
    Named {
        what,
        _values: PhantomData,
    }
}

impl<T: ValueEnum + Clone + Send + Sync + 'static> TypedValueParser for Named<T> {
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &Command,
        _arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_string_lossy();
        T::from_str(&text, false).map_err(|_| {
            let known: Vec<String> = T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value())
                .map(|p| p.get_name().to_string())
                .collect();
            clap::Error::raw(
                ErrorKind::InvalidValue,
                format!(
                    "unknown {} '{text}'; known: {}\n",
                    self.what,
                    known.join(", ")
                ),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            T::value_variants()
                .iter()
                .filter_map(|v| v.to_possible_value()),
        ))
    }
}

/// The value parser of `--check [exact|model]` (and `check --hold`): what a check holds C to,
/// read by [`Hold`]'s own `FromStr`, whose refusal is one line.
#[derive(Clone, Copy)]
pub struct HoldParser;

impl TypedValueParser for HoldParser {
    type Value = Hold;

    fn parse_ref(
        &self,
        cmd: &Command,
        _arg: Option<&Arg>,
        value: &OsStr,
    ) -> Result<Hold, clap::Error> {
        value.to_string_lossy().parse::<Hold>().map_err(|why| {
            clap::Error::raw(ErrorKind::InvalidValue, format!("{why}\n")).with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            [
                PossibleValue::new(Hold::Exact.name()).help(
                    "close to the exact product, and what the method's pipeline computes (the default)",
                ),
                PossibleValue::new(Hold::Model.name()).help(
                    "what the method's pipeline computes, however far that is from the exact product (u8 saturation and rounding, f16 sums that stop growing)",
                ),
            ]
            .into_iter(),
        ))
    }
}
