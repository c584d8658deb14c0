//! Exact counts for the models. A model may be asked about sides no device could hold (the
//! model is arithmetic, not a run): the bytes of 3·10⁶-cubed L-M are 4.32·10²⁰, past u64, and
//! at sides of 2³² a u64 count wraps to 0. Counts are therefore u128, and every product and sum
//! is checked: a count that would pass u128 is refused, never wrapped.

use std::ops::{Add, Div, Mul, Sub};

/// A count computed in u128, or `None` once any step of it passed u128 (or went below 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Count(pub Option<u128>);

impl Count {
    /// ⌈self / d⌉ (d = 0 is a passed count, not a panic).
    pub fn div_ceil(self, d: impl Into<Count>) -> Count {
        match (self.0, d.into().0) {
            (Some(a), Some(d)) if d > 0 => Count(Some(a.div_ceil(d))),
            _ => Count(None),
        }
    }

    /// The least multiple of `d` at or above `self`.
    pub fn next_multiple_of(self, d: impl Into<Count>) -> Count {
        let d = d.into();
        self.div_ceil(d) * d
    }

    pub fn min(self, o: impl Into<Count>) -> Count {
        self.zip(o.into(), |a, b| Some(a.min(b)))
    }

    pub fn max(self, o: impl Into<Count>) -> Count {
        self.zip(o.into(), |a, b| Some(a.max(b)))
    }

    fn zip(self, o: Count, f: impl FnOnce(u128, u128) -> Option<u128>) -> Count {
        match (self.0, o.0) {
            (Some(a), Some(b)) => Count(f(a, b)),
            _ => Count(None),
        }
    }
}

impl From<u128> for Count {
    fn from(x: u128) -> Count {
        Count(Some(x))
    }
}

impl From<u64> for Count {
    fn from(x: u64) -> Count {
        Count(Some(x.into()))
    }
}

impl From<u32> for Count {
    fn from(x: u32) -> Count {
        Count(Some(x.into()))
    }
}

impl From<usize> for Count {
    fn from(x: usize) -> Count {
        // usize is at most 64 bits on every target this builds for.
        Count(Some(x as u128))
    }
}

macro_rules! checked {
    ($tr:ident, $f:ident, $op:ident) => {
        impl<T: Into<Count>> $tr<T> for Count {
            type Output = Count;
            fn $f(self, o: T) -> Count {
                self.zip(o.into(), |a, b| a.$op(b))
            }
        }
    };
}
checked!(Add, add, checked_add);
checked!(Sub, sub, checked_sub);
checked!(Mul, mul, checked_mul);
checked!(Div, div, checked_div);

#[cfg(test)]
mod tests {
    use super::Count;

    #[test]
    fn a_count_past_u128_is_none_not_wrapped() {
        let big = Count::from(u64::MAX);
        assert_eq!(
            (big * big).0,
            u128::from(u64::MAX).checked_mul(u64::MAX.into())
        );
        assert_eq!((big * big * 2u32).0, None);
        assert_eq!((Count::from(1u32) - 2u32).0, None);
        assert_eq!(Count::from(7u32).div_ceil(0u32).0, None);
        assert_eq!(Count::from(7u32).next_multiple_of(4u32).0, Some(8));
    }
}
