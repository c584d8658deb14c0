//! The operands of `multiply`: the right-hand `--b` (a file, or Hall's block size), `--block`,
//! and the (A, B) pairs read from files or drawn at random.

use super::guard;
use crate::io::{self, Dtype};
use crate::matrix::{Matrix, parse_mkn};
use anyhow::{Result, bail};
use std::path::{Path, PathBuf};

/// A Hall–Carr–Hart block size from the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockArg {
    Fixed(u32),
    Auto,
}

/// `Some` if `s` reads as a block size (`auto` or a whole number), `None` if it is something
/// else (a file name, for `--b`).
fn parse_block(s: &str) -> Option<Result<BlockArg>> {
    if s == "auto" {
        return Some(Ok(BlockArg::Auto));
    }
    if s.is_empty() || !s.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some(
        s.parse::<u32>()
            .map(BlockArg::Fixed)
            .map_err(|_| anyhow::anyhow!("block size b = {s} is too large")),
    )
}

/// Split the values of `--b` into the right-matrix file and Hall's block size (a whole number
/// or `auto`), and merge in `--block`.
pub fn b_operands(
    b: &[String],
    block: Option<&str>,
) -> Result<(Option<PathBuf>, Option<BlockArg>)> {
    let mut file = None;
    let mut blk = match block {
        Some(s) => Some(parse_block(s).unwrap_or_else(|| {
            Err(anyhow::anyhow!(
                "--block '{s}': give a whole number or auto"
            ))
        })?),
        None => None,
    };
    for v in b {
        match parse_block(v) {
            Some(given) => {
                if blk.is_some() {
                    bail!("the block size is given twice (--b {v} and another --b or --block)");
                }
                blk = Some(given?);
            }
            None if file.is_some() => bail!("--b names two files; give one right-hand matrix"),
            None => file = Some(PathBuf::from(v)),
        }
    }
    Ok((file, blk))
}

/// Where the inputs come from.
pub enum Source<'a> {
    /// `--a FILE --b FILE`; `allow_nonfinite`: a float64 value past f32's range is taken (as an
    /// infinity, its value as given kept for the check) instead of refused.
    Files {
        a: &'a Path,
        b: &'a Path,
        allow_nonfinite: bool,
    },
    /// `--random [BxMxKxN|MxKxN]`, uniform in `range`.
    Random {
        shape: &'a str,
        seed: u64,
        range: (f32, f32),
    },
}

/// The (A, B) pairs to multiply: one pair, or `channels` pairs for a multi-channel run.
pub struct Operands {
    pub a: Vec<Matrix>,
    pub b: Vec<Matrix>,
    /// Whether an input file stored its numbers as float64 (they are computed in f32).
    pub float64_input: bool,
    /// For each of `a` and `b` per pair: the values as given, where a float64 file holds a
    /// finite value past f32's range (`a` and `b` hold it as an infinity). The check's reference
    /// is the product of these, not of the f32 matrices.
    pub a_given: Vec<Option<Vec<f64>>>,
    pub b_given: Vec<Option<Vec<f64>>>,
}

/// Read or draw the inputs: `channels` pairs.
pub fn load(source: Source, channels: usize) -> Result<Operands> {
    match source {
        Source::Files {
            a,
            b,
            allow_nonfinite,
        } => read_files(a, b, channels, allow_nonfinite),
        Source::Random { shape, seed, range } => draw_random(shape, seed, range, channels),
    }
}

fn read_files(a: &Path, b: &Path, ch: usize, allow_nonfinite: bool) -> Result<Operands> {
    let read = |p: &Path| -> Result<io::AsGiven> {
        let r = io::read_as_given(p, ch > 1)?;
        match r.past_f32 {
            Some(crate::Error::Format { path, message }) if !allow_nonfinite => {
                Err(crate::Error::Format {
                    path,
                    message: format!(
                        "{message} (pass --allow-nonfinite to take it as an infinity)"
                    ),
                }
                .into())
            }
            Some(e) if !allow_nonfinite => Err(e.into()),
            _ => Ok(r),
        }
    };
    let (ra, rb) = (read(a)?, read(b)?);
    for (name, r, path) in [("--a", &ra, a), ("--b", &rb, b)] {
        if r.matrices.len() != ch {
            bail!(
                "{name} {}: holds {} matrices but --channels is {ch}",
                path.display(),
                r.matrices.len()
            );
        }
    }
    let given = |v: Option<Vec<Vec<f64>>>| match v {
        Some(per) => per.into_iter().map(Some).collect(),
        None => vec![None; ch],
    };
    Ok(Operands {
        float64_input: ra.dtype == Some(Dtype::F64) || rb.dtype == Some(Dtype::F64),
        a: ra.matrices,
        b: rb.matrices,
        a_given: given(ra.values),
        b_given: given(rb.values),
    })
}

/// `BxMxKxN` or `MxKxN`: the number of pairs and the product's shape.
pub fn parse_random_shape(shape: &str) -> Result<(usize, (usize, usize, usize))> {
    let (batch, mkn) = match shape.split_once(['x', 'X']) {
        Some((first, rest)) if rest.matches(['x', 'X']).count() == 2 => (
            first
                .parse::<usize>()
                .map_err(|_| anyhow::anyhow!("--random '{shape}': expected BxMxKxN or MxKxN"))?,
            rest,
        ),
        _ => (1, shape),
    };
    // The error quotes what the reader wrote, the pair count included, not the part parsed.
    let mkn = parse_mkn(mkn).map_err(|e| match e {
        crate::Error::Invalid(why) if mkn != shape => {
            crate::Error::Invalid(why.replace(&format!("'{mkn}'"), &format!("'{shape}'")))
        }
        other => other,
    })?;
    Ok((batch, mkn))
}

fn draw_random(shape: &str, seed: u64, (lo, hi): (f32, f32), ch: usize) -> Result<Operands> {
    let (batch, (m, k, n)) = parse_random_shape(shape)?;
    if batch != ch {
        bail!("--random '{shape}' makes {batch} pair(s) but --channels is {ch}");
    }
    guard::product_memory(&format!("--random {shape}"), (m, k, n), ch)?;
    let s = seed.wrapping_mul(2 * ch as u64 + 2);
    let a = (0..ch)
        .map(|c| Matrix::try_random(m, k, s + 2 * c as u64, lo, hi))
        .collect::<crate::error::Result<_>>()?;
    let b = (0..ch)
        .map(|c| Matrix::try_random(k, n, s + 2 * c as u64 + 1, lo, hi))
        .collect::<crate::error::Result<_>>()?;
    Ok(Operands {
        a,
        b,
        float64_input: false,
        a_given: vec![None; ch],
        b_given: vec![None; ch],
    })
}
