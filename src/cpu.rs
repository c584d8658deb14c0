//! CPU multiplies: the seed's naive triple loop, a fast GEMM from the `gemm` crate, and the f64
//! reference every GPU result is checked against.

use crate::matrix::Matrix;

/// The textbook triple loop `C[i][j] = Σ_p A[i][p]·B[p][j]` in f32 (HIP blog and 5kk73's CPU baseline).
pub fn naive(a: &Matrix, b: &Matrix) -> Matrix {
    assert_eq!(a.cols, b.rows, "cpu::naive: inner dimensions differ");
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = Matrix::zeros(m, n);
    for i in 0..m {
        for j in 0..n {
            let mut s = 0.0f32;
            for p in 0..k {
                s += a.data[i * k + p] * b.data[p * n + j];
            }
            c.data[i * n + j] = s;
        }
    }
    c
}

/// Without the native feature (the browser build) there is no GEMM crate: the seeds' loop.
#[cfg(not(feature = "native"))]
pub fn fast(a: &Matrix, b: &Matrix) -> Matrix {
    naive(a, b)
}

/// A fast, multithreaded f32 GEMM (`gemm` crate: packed panels, SIMD micro-kernels; AVX-512
/// where the CPU has it, AVX2 elsewhere).
#[cfg(feature = "native")]
pub fn fast(a: &Matrix, b: &Matrix) -> Matrix {
    assert_eq!(a.cols, b.rows, "cpu::fast: inner dimensions differ");
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = Matrix::zeros(m, n);
    let threads = std::thread::available_parallelism().map_or(1, |t| t.get());
    let par = if threads > 1 && m * n * k > 64 * 64 * 64 {
        gemm::Parallelism::Rayon(threads)
    } else {
        gemm::Parallelism::None
    };
    // SAFETY: the pointers and strides describe the three row-major buffers above, whose sizes
    // are m·k, k·n and m·n; alpha is unused because read_dst is false.
    unsafe {
        gemm::gemm(
            m,
            n,
            k,
            c.data.as_mut_ptr(),
            1,
            n as isize,
            false,
            a.data.as_ptr(),
            1,
            k as isize,
            b.data.as_ptr(),
            1,
            n as isize,
            0.0f32,
            1.0f32,
            false,
            false,
            false,
            par,
        );
    }
    c
}

/// The f64 reference `C = A·B`, accumulated in f64 from the f32 inputs. Row-major, m×n.
pub fn reference_f64(a: &Matrix, b: &Matrix) -> Vec<f64> {
    assert_eq!(
        a.cols, b.rows,
        "cpu::reference_f64: inner dimensions differ"
    );
    let (m, k, n) = (a.rows, a.cols, b.cols);
    let mut c = vec![0.0f64; m * n];
    for i in 0..m {
        let row = &mut c[i * n..(i + 1) * n];
        for p in 0..k {
            let aip = a.data[i * k + p] as f64;
            let brow = &b.data[p * n..(p + 1) * n];
            for (cj, &bpj) in row.iter_mut().zip(brow) {
                *cj += aip * bpj as f64;
            }
        }
    }
    c
}
