//! int8 matrix products for the fused pass's linear layers: x (rows, inner) · W (inner, outer).
//! On CPUs with AVX-512 VNNI one `vpdpbusd` does 64 byte products where an f32 FMA does 16.
//!
//! Weights are quantised once, symmetric per output column: q = round(w / s), s = max|w| / 127.
//! Activations are quantised per row as the product runs, affine over the row's own range:
//! x ≈ lo + step·u, u in 0..=255, so all eight bits are used whatever the row's sign balance
//! (GELU's outputs are nearly all positive). Then for column j
//!     Σ x·w ≈ s_j · (step · Σ u·q + lo · Σ q),
//! an exact i32 product and the column's sum of q, and nothing is rounded but u and q.

use rayon::prelude::*;

/// Columns of a weight panel: four 512-bit registers of 16 i32 lanes.
const PANEL: usize = 64;
/// Rows of a register tile: 6 × 4 accumulators, 4 weight vectors and a broadcast fit the 32
/// vector registers.
const TILE: usize = 6;
/// The most rows one task quantises and multiplies: small enough that a batch of passages
/// splits into many tasks for both cores, and a task's codes stay in L2.
const CHUNK: usize = 16 * TILE;

/// Which code multiplies the bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// AVX-512 VNNI, register-blocked.
    Vnni,
    /// Plain integer loops: the same results everywhere, slowly.
    Scalar,
}

impl Kernel {
    /// VNNI where this CPU has it.
    pub fn best() -> Kernel {
        if vnni_available() {
            Kernel::Vnni
        } else {
            Kernel::Scalar
        }
    }
}

/// Whether this CPU runs the VNNI kernel.
pub fn vnni_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vnni")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// A weight matrix quantised and packed for the kernels.
pub struct Int8Linear {
    inner: usize,
    outer: usize,
    /// `inner` rounded up to whole groups of four bytes (one i32 lane).
    groups: usize,
    /// Panels of PANEL columns; in a panel, for each group of four inner indices, each
    /// column's four bytes: the lane order `vpdpbusd` multiplies. Padding is zero.
    packed: Vec<i8>,
    scales: Vec<f32>,
    /// Σ q per column, exact in f32 (|Σ q| ≤ 127 · inner ≪ 2^24).
    sums: Vec<f32>,
    kernel: Kernel,
}

/// One tile's rows, quantised: `codes` holds each row's groups·4 bytes.
struct Rows<'a> {
    codes: &'a [u8],
    steps: &'a [f32],
    lows: &'a [f32],
}

/// One panel's columns: its packed bytes and, per column, what the epilogue needs.
struct Cols<'a> {
    packed: &'a [i8],
    scales: &'a [f32],
    sums: &'a [f32],
    bias: Option<&'a [f32]>,
}

impl Int8Linear {
    /// `w`: (outer, inner) row-major, as checkpoints store a linear layer's weight.
    pub fn new(w: &[f32], inner: usize, outer: usize, kernel: Kernel) -> Self {
        assert!(inner > 0 && outer > 0, "an empty weight matrix");
        assert_eq!(w.len(), inner * outer, "weight shape");
        let groups = inner.div_ceil(4);
        let panels = outer.div_ceil(PANEL);
        let mut packed = vec![0i8; panels * groups * PANEL * 4];
        let mut scales = vec![0f32; outer];
        let mut sums = vec![0f32; outer];
        for (j, row) in w.chunks_exact(inner).enumerate() {
            let max = row.iter().fold(0f32, |m, v| m.max(v.abs()));
            let scale = max / 127.0;
            let (panel, col) = (j / PANEL, j % PANEL);
            let mut sum = 0i32;
            for (k, &v) in row.iter().enumerate() {
                let q = if max > 0.0 {
                    (v / scale).round().clamp(-127.0, 127.0) as i8
                } else {
                    0
                };
                sum += i32::from(q);
                packed[((panel * groups + k / 4) * PANEL + col) * 4 + k % 4] = q;
            }
            scales[j] = scale;
            sums[j] = sum as f32;
        }
        Int8Linear {
            inner,
            outer,
            groups,
            packed,
            scales,
            sums,
            kernel,
        }
    }

    pub fn inner(&self) -> usize {
        self.inner
    }

    pub fn outer(&self) -> usize {
        self.outer
    }

    /// x (rows, inner) row-major -> x·W (+ bias) (rows, outer), over rayon's threads.
    pub fn forward(&self, x: &[f32], bias: Option<&[f32]>) -> Vec<f32> {
        assert_eq!(x.len() % self.inner, 0, "input width");
        assert!(bias.is_none_or(|b| b.len() == self.outer), "bias width");
        let rows = x.len() / self.inner;
        let mut out = vec![0f32; rows * self.outer];
        let threads = rayon::current_num_threads().max(1);
        // At least two tasks a thread when there are rows enough, so an uneven split evens out.
        let chunk = rows
            .div_ceil(2 * threads)
            .next_multiple_of(TILE)
            .clamp(TILE, CHUNK);
        out.par_chunks_mut(chunk * self.outer)
            .zip(x.par_chunks(chunk * self.inner))
            .for_each(|(out, x)| self.chunk(x, bias, out));
        out
    }

    fn chunk(&self, x: &[f32], bias: Option<&[f32]>, out: &mut [f32]) {
        let rows = x.len() / self.inner;
        let width = self.groups * 4;
        let mut codes = vec![0u8; rows * width];
        let mut steps = vec![0f32; rows];
        let mut lows = vec![0f32; rows];
        let mut rows_of = Quantised {
            codes: &mut codes,
            steps: &mut steps,
            lows: &mut lows,
        };
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: as for `tile`.
            Kernel::Vnni => unsafe { vnni::quantise(x, self.inner, &mut rows_of) },
            _ => quantise(x, self.inner, &mut rows_of),
        }
        let panel_bytes = self.groups * PANEL * 4;
        for (p, packed) in self.packed.chunks_exact(panel_bytes).enumerate() {
            let first = p * PANEL;
            let last = (first + PANEL).min(self.outer);
            let cols = Cols {
                packed,
                scales: &self.scales[first..last],
                sums: &self.sums[first..last],
                bias: bias.map(|b| &b[first..last]),
            };
            for start in (0..rows).step_by(TILE) {
                let n = TILE.min(rows - start);
                let tile = Rows {
                    codes: &codes[start * width..(start + n) * width],
                    steps: &steps[start..start + n],
                    lows: &lows[start..start + n],
                };
                let out = &mut out[start * self.outer + first..];
                self.tile(&tile, &cols, out);
            }
        }
    }

    fn tile(&self, rows: &Rows, cols: &Cols, out: &mut [f32]) {
        match self.kernel {
            #[cfg(target_arch = "x86_64")]
            Kernel::Vnni => {
                // SAFETY: a Vnni kernel is only made where the CPU has the features
                // (`Kernel::best`, or a caller that checked `vnni_available`).
                unsafe { vnni::tile(rows, cols, self.groups, out, self.outer) }
            }
            _ => scalar_tile(rows, cols, self.groups, out, self.outer),
        }
    }
}

/// Where rows are quantised to: each row's codes (groups·4 bytes), step and low.
struct Quantised<'a> {
    codes: &'a mut [u8],
    steps: &'a mut [f32],
    lows: &'a mut [f32],
}

/// Quantises the rows of x (rows, inner).
#[inline(always)]
fn quantise(x: &[f32], inner: usize, into: &mut Quantised) {
    let width = into.codes.len() / into.steps.len().max(1);
    for (r, row) in x.chunks_exact(inner).enumerate() {
        (into.steps[r], into.lows[r]) = quantise_row(row, &mut into.codes[r * width..][..inner]);
    }
}

/// u = round((x − lo) / step) into `codes`; returns (step, lo). A constant row gets step 0
/// and all codes 0, which the epilogue turns back into lo exactly.
#[inline(always)]
fn quantise_row(row: &[f32], codes: &mut [u8]) -> (f32, f32) {
    let (lo, hi) = range(row);
    let step = (hi - lo) / 255.0;
    if step > 0.0 {
        let inv = 1.0 / step;
        // The values are ≥ 0, so + 0.5 and truncation round them; `as` saturates at 255.
        for (c, &v) in codes.iter_mut().zip(row) {
            *c = ((v - lo) * inv + 0.5) as u8;
        }
        (step, lo)
    } else {
        (0.0, if lo.is_finite() { lo } else { 0.0 })
    }
}

/// The least and the greatest value of a row, in 16 lanes: `f32::min` keeps NaN's rules, which
/// stops the loop from vectorising.
#[inline(always)]
fn range(row: &[f32]) -> (f32, f32) {
    let mut lo = [f32::INFINITY; 16];
    let mut hi = [f32::NEG_INFINITY; 16];
    let mut chunks = row.chunks_exact(16);
    for chunk in &mut chunks {
        for ((l, h), &v) in lo.iter_mut().zip(&mut hi).zip(chunk) {
            *l = if v < *l { v } else { *l };
            *h = if v > *h { v } else { *h };
        }
    }
    for (l, h) in lo.iter_mut().zip(&mut hi) {
        for &v in chunks.remainder() {
            *l = if v < *l { v } else { *l };
            *h = if v > *h { v } else { *h };
        }
    }
    let lo = lo
        .iter()
        .fold(f32::INFINITY, |a, &b| if b < a { b } else { a });
    let hi = hi
        .iter()
        .fold(f32::NEG_INFINITY, |a, &b| if b > a { b } else { a });
    (lo, hi)
}

/// The epilogue of one output, written in the order the VNNI kernel computes it (no fused
/// multiply-add), so that both kernels give the same bits.
#[inline(always)]
fn dequantise(acc: i32, step: f32, low: f32, sum: f32, scale: f32, bias: Option<f32>) -> f32 {
    let y = (acc as f32 * step + low * sum) * scale;
    match bias {
        Some(b) => y + b,
        None => y,
    }
}

fn scalar_tile(rows: &Rows, cols: &Cols, groups: usize, out: &mut [f32], stride: usize) {
    let width = groups * 4;
    for (r, codes) in rows.codes.chunks_exact(width).enumerate() {
        for c in 0..cols.scales.len() {
            let mut acc = 0i32;
            for g in 0..groups {
                let w = &cols.packed[(g * PANEL + c) * 4..][..4];
                for (&u, &q) in codes[g * 4..g * 4 + 4].iter().zip(w) {
                    acc += i32::from(u) * i32::from(q);
                }
            }
            out[r * stride + c] = dequantise(
                acc,
                rows.steps[r],
                rows.lows[r],
                cols.sums[c],
                cols.scales[c],
                cols.bias.map(|b| b[c]),
            );
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use std::arch::x86_64::*;

    use super::{Cols, Quantised, Rows, PANEL, TILE};

    /// `super::quantise` compiled for AVX-512: the same operations, so the same codes.
    ///
    /// # Safety
    /// The CPU must have avx512f and avx512bw.
    #[target_feature(enable = "avx512f,avx512bw")]
    pub(super) unsafe fn quantise(x: &[f32], inner: usize, into: &mut Quantised) {
        super::quantise(x, inner, into)
    }

    /// Dispatches a tile of 1..=TILE rows to the kernel unrolled for that many.
    ///
    /// # Safety
    /// The CPU must have avx512f, avx512bw and avx512vnni.
    pub(super) unsafe fn tile(
        rows: &Rows,
        cols: &Cols,
        groups: usize,
        out: &mut [f32],
        stride: usize,
    ) {
        match rows.steps.len() {
            6 => tile_of::<6>(rows, cols, groups, out, stride),
            5 => tile_of::<5>(rows, cols, groups, out, stride),
            4 => tile_of::<4>(rows, cols, groups, out, stride),
            3 => tile_of::<3>(rows, cols, groups, out, stride),
            2 => tile_of::<2>(rows, cols, groups, out, stride),
            1 => tile_of::<1>(rows, cols, groups, out, stride),
            n => unreachable!("a tile has 1..={TILE} rows, not {n}"),
        }
    }

    /// R rows times one panel: R × 4 i32 accumulators in registers over all groups, then the
    /// epilogue, stored with a mask where the panel is wider than the matrix.
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    unsafe fn tile_of<const R: usize>(
        rows: &Rows,
        cols: &Cols,
        groups: usize,
        out: &mut [f32],
        stride: usize,
    ) {
        let width = groups * 4;
        let n = cols.scales.len();
        assert!(rows.codes.len() >= R * width && cols.packed.len() >= groups * PANEL * 4);
        assert!(out.len() >= (R - 1) * stride + n);
        let a = rows.codes.as_ptr();
        let b = cols.packed.as_ptr();
        let mut acc = [[_mm512_setzero_si512(); 4]; R];
        for g in 0..groups {
            // SAFETY (all loads): group g of the panel is bytes g·256 .. g·256 + 256, and row
            // r's group g is bytes r·width + 4g .. + 4, both inside the slices checked above.
            let w = b.add(g * PANEL * 4);
            let wv = [
                _mm512_loadu_si512(w.cast()),
                _mm512_loadu_si512(w.add(64).cast()),
                _mm512_loadu_si512(w.add(128).cast()),
                _mm512_loadu_si512(w.add(192).cast()),
            ];
            for (r, acc) in acc.iter_mut().enumerate() {
                let u = a.add(r * width + g * 4).cast::<i32>().read_unaligned();
                let u = _mm512_set1_epi32(u);
                for (acc, &w) in acc.iter_mut().zip(&wv) {
                    *acc = _mm512_dpbusd_epi32(*acc, u, w);
                }
            }
        }
        for v in 0..4 {
            let first = v * 16;
            if first >= n {
                break;
            }
            let mask: __mmask16 = if n - first >= 16 {
                0xffff
            } else {
                (1u16 << (n - first)) - 1
            };
            let scale = _mm512_maskz_loadu_ps(mask, cols.scales.as_ptr().add(first));
            let sum = _mm512_maskz_loadu_ps(mask, cols.sums.as_ptr().add(first));
            let bias = cols
                .bias
                .map(|b| _mm512_maskz_loadu_ps(mask, b.as_ptr().add(first)));
            for (r, acc) in acc.iter().enumerate() {
                let step = _mm512_set1_ps(rows.steps[r]);
                let low = _mm512_set1_ps(rows.lows[r]);
                let y = _mm512_add_ps(
                    _mm512_mul_ps(_mm512_cvtepi32_ps(acc[v]), step),
                    _mm512_mul_ps(low, sum),
                );
                let mut y = _mm512_mul_ps(y, scale);
                if let Some(bias) = bias {
                    y = _mm512_add_ps(y, bias);
                }
                _mm512_mask_storeu_ps(out.as_mut_ptr().add(r * stride + first), mask, y);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reproducible stream of values in [-1, 1).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
        }
        fn fill(&mut self, n: usize, scale: f32) -> Vec<f32> {
            (0..n).map(|_| self.next() * scale).collect()
        }
    }

    /// x · wᵀ in f64, w (outer, inner).
    fn naive(x: &[f32], w: &[f32], inner: usize) -> Vec<f64> {
        let mut out = Vec::new();
        for row in x.chunks_exact(inner) {
            for col in w.chunks_exact(inner) {
                out.push(
                    row.iter()
                        .zip(col)
                        .map(|(&a, &b)| f64::from(a) * f64::from(b))
                        .sum(),
                );
            }
        }
        out
    }

    /// (rows, inner, outer, value scale): odd sizes that fill no tile, group or panel, one row,
    /// the model's own shapes, and values far from 1.
    const SHAPES: &[(usize, usize, usize, f32)] = &[
        (1, 1, 1, 1.0),
        (1, 384, 1152, 1.0),
        (7, 5, 3, 1.0),
        (13, 37, 65, 1.0),
        (6, 64, 64, 1.0),
        (97, 130, 200, 1.0),
        (5, 1536, 384, 1.0),
        (11, 33, 129, 3.0e4),
        (9, 17, 70, 1.0e-3),
    ];

    #[test]
    fn the_int8_product_stays_within_the_rounding_bound_of_the_f32_one() {
        let mut rng = Lcg(7);
        for &(rows, inner, outer, scale) in SHAPES {
            let mut x = rng.fill(rows * inner, scale);
            // One row all positive (a GELU's), one constant: the affine code's odd cases.
            x[..inner].iter_mut().for_each(|v| *v = v.abs());
            if rows > 2 {
                x[inner..2 * inner]
                    .iter_mut()
                    .for_each(|v| *v = 0.25 * scale);
            }
            let w = rng.fill(outer * inner, 0.1);
            let bias = rng.fill(outer, 1.0);
            let got = Int8Linear::new(&w, inner, outer, Kernel::best()).forward(&x, Some(&bias));
            let want = naive(&x, &w, inner);
            for (i, row) in x.chunks_exact(inner).enumerate() {
                let (lo, hi) = row
                    .iter()
                    .fold((f32::MAX, f32::MIN), |(a, b), &v| (a.min(v), b.max(v)));
                let half_step = f64::from(hi - lo) / 255.0 / 2.0;
                for (j, col) in w.chunks_exact(inner).enumerate() {
                    let max_w = col.iter().fold(0f32, |m, v| m.max(v.abs()));
                    let half_scale = f64::from(max_w) / 127.0 / 2.0;
                    // |Σ xw − Σ x̂ŵ| ≤ Σ |Δx||w| + |x||Δw| + |Δx||Δw|, plus f32 rounding.
                    let bound: f64 = row
                        .iter()
                        .zip(col)
                        .map(|(&a, &b)| {
                            half_step * f64::from(b.abs())
                                + f64::from(a.abs()) * half_scale
                                + half_step * half_scale
                        })
                        .sum();
                    let magnitude: f64 = row
                        .iter()
                        .zip(col)
                        .map(|(&a, &b)| f64::from(a.abs() * b.abs()))
                        .sum();
                    let err =
                        (f64::from(got[i * outer + j]) - want[i * outer + j] - f64::from(bias[j]))
                            .abs();
                    let slack = 1e-5 * (magnitude + f64::from(bias[j].abs())) + 1e-30;
                    assert!(
                        err <= bound + slack,
                        "({rows}, {inner}, {outer}) at ({i}, {j}): error {err}, bound {bound}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_product_errs_little_next_to_the_size_of_its_outputs() {
        let (rows, inner, outer) = (50, 384, 1152);
        let mut rng = Lcg(11);
        let x = rng.fill(rows * inner, 2.0);
        let w = rng.fill(outer * inner, 0.05);
        let got = Int8Linear::new(&w, inner, outer, Kernel::best()).forward(&x, None);
        let want = naive(&x, &w, inner);
        let norm = |v: &mut dyn Iterator<Item = f64>| v.map(|d| d * d).sum::<f64>().sqrt();
        let err = norm(&mut got.iter().zip(&want).map(|(&g, &w)| f64::from(g) - w));
        let size = norm(&mut want.iter().copied());
        assert!(err / size < 0.01, "relative error {}", err / size);
    }

    #[test]
    fn the_vnni_kernel_and_the_scalar_loops_give_the_same_bits() {
        if !vnni_available() {
            eprintln!("skipped: this CPU has no AVX-512 VNNI");
            return;
        }
        let mut rng = Lcg(3);
        for &(rows, inner, outer, scale) in SHAPES {
            let x = rng.fill(rows * inner, scale);
            let w = rng.fill(outer * inner, 0.3);
            let bias = rng.fill(outer, 1.0);
            let fast = Int8Linear::new(&w, inner, outer, Kernel::Vnni);
            let slow = Int8Linear::new(&w, inner, outer, Kernel::Scalar);
            for bias in [None, Some(bias.as_slice())] {
                let (a, b) = (fast.forward(&x, bias), slow.forward(&x, bias));
                let same = a.iter().zip(&b).all(|(p, q)| p.to_bits() == q.to_bits());
                assert!(same, "({rows}, {inner}, {outer}) bias {}", bias.is_some());
            }
        }
    }

    #[test]
    fn no_rows_give_no_outputs() {
        let lin = Int8Linear::new(&[0.5; 6], 3, 2, Kernel::best());
        assert!(lin.forward(&[], None).is_empty());
    }
}
