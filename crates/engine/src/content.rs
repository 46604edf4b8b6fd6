//! `read_content`: what a file's raw bytes are returned as (compat 2.7).
//!
//! Text is returned as text, images are re-encoded as JPEG small enough for a model's context,
//! and anything else is returned whole as a document, up to a size limit.

use std::io::Cursor;

use image::imageops::FilterType;
use image::{DynamicImage, ImageReader, RgbImage};

/// The largest document (non-text, non-image file) returned, in bytes.
pub(crate) const MAX_DOCUMENT_BYTES: usize = 350_000;

/// A re-encoded image must be strictly smaller than this many bytes.
const MAX_IMAGE_BYTES: usize = 350_000;
/// The lowest JPEG quality tried.
const MIN_QUALITY: u8 = 20;
/// The smallest longest side (in pixels) tried.
const MIN_DIMENSION: u32 = 300;

/// What read_content returns for a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// text/*, JSON and SVG, decoded lossily, with the content type without parameters.
    Text { text: String, mime: String },
    /// An image, re-encoded as JPEG under the size limit.
    Image { jpeg: Vec<u8> },
    /// Any other file, whole, with its media type.
    Document { bytes: Vec<u8>, media_type: String },
    /// A document over [`MAX_DOCUMENT_BYTES`], of this many bytes.
    TooLarge { size: usize },
}

/// What a file's bytes of `content_type` are returned as (compat 2.7).
pub(crate) fn content_of(bytes: Vec<u8>, content_type: &str) -> Content {
    let mime = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    // A file typed text/plain by its unknown extension may be binary: then it is a document.
    let binary = mime == "text/plain" && bytes.iter().take(8192).any(|&b| b == 0);
    if is_text(&mime) && !binary {
        let text = String::from_utf8_lossy(&bytes).into_owned();
        return Content::Text { text, mime };
    }
    let mime = if binary {
        "application/octet-stream".to_string()
    } else {
        mime
    };
    if mime.starts_with("image/") {
        if let Some(jpeg) = optimized_jpeg(&bytes) {
            return Content::Image { jpeg };
        }
    }
    document(bytes, mime)
}

/// True for content types returned as text: text/*, JSON and SVG.
fn is_text(mime: &str) -> bool {
    mime.starts_with("text/")
        || mime == "application/json"
        || mime.ends_with("+json")
        || mime == "image/svg+xml"
}

/// A file returned whole, unless it is too large.
fn document(bytes: Vec<u8>, mime: String) -> Content {
    if bytes.len() > MAX_DOCUMENT_BYTES {
        return Content::TooLarge { size: bytes.len() };
    }
    let media_type = if mime.is_empty() {
        "application/octet-stream".to_string()
    } else {
        mime
    };
    Content::Document { bytes, media_type }
}

/// The starting JPEG quality and longest side for an input of `len` bytes.
fn initial_params(len: usize) -> (u8, u32) {
    if len < 500_000 {
        (70, 1000)
    } else if len < 2_000_000 {
        (60, 800)
    } else {
        (50, 600)
    }
}

/// Decodes an image and re-encodes it as JPEG under [`MAX_IMAGE_BYTES`], lowering quality and
/// size step by step; at the floor (quality 20, 300 px) returns whatever that produces. `None`
/// when the bytes are not a decodable image.
fn optimized_jpeg(bytes: &[u8]) -> Option<Vec<u8>> {
    let image = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?
        .decode()
        .ok()?;
    let rgb = to_rgb8(image);
    let (mut quality, mut size) = initial_params(bytes.len());
    loop {
        let resized = fit_within(&rgb, size);
        let encoded = encode_jpeg(resized.as_ref().unwrap_or(&rgb), quality)?;
        let at_floor = quality <= MIN_QUALITY && size <= MIN_DIMENSION;
        if encoded.len() < MAX_IMAGE_BYTES || at_floor {
            return Some(encoded);
        }
        quality = quality.saturating_sub(10).max(MIN_QUALITY);
        size = ((size as u64 * 8 / 10) as u32).max(MIN_DIMENSION);
    }
}

/// The image as 8-bit RGB; transparent pixels are composited onto white, since JPEG has no
/// alpha channel.
fn to_rgb8(image: DynamicImage) -> RgbImage {
    if !image.color().has_alpha() {
        return image.into_rgb8();
    }
    let rgba = image.into_rgba8();
    let (w, h) = rgba.dimensions();
    RgbImage::from_fn(w, h, |x, y| {
        let [r, g, b, a] = rgba.get_pixel(x, y).0;
        let a = a as u32;
        let blend = |c: u8| ((c as u32 * a + 255 * (255 - a) + 127) / 255) as u8;
        image::Rgb([blend(r), blend(g), blend(b)])
    })
}

/// The image scaled down (keeping its aspect ratio) so its longest side is at most `max_side`;
/// `None` when it already fits (images are never upscaled).
fn fit_within(image: &RgbImage, max_side: u32) -> Option<RgbImage> {
    let (w, h) = image.dimensions();
    let longest = w.max(h);
    if longest <= max_side {
        return None;
    }
    let scale =
        |d: u32| ((d as u64 * max_side as u64 + longest as u64 / 2) / longest as u64) as u32;
    let (nw, nh) = (scale(w).clamp(1, max_side), scale(h).clamp(1, max_side));
    Some(image::imageops::resize(image, nw, nh, FilterType::Triangle))
}

fn encode_jpeg(image: &RgbImage, quality: u8) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, quality)
        .encode_image(image)
        .ok()?;
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::{GenericImageView, ImageFormat, RgbaImage};

    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn bytes(&mut self, n: usize) -> Vec<u8> {
            (0..n).map(|_| self.next() as u8).collect()
        }
    }

    fn png(image: RgbaImage) -> Vec<u8> {
        let mut out = Vec::new();
        image
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .unwrap();
        out
    }

    fn noise_png(w: u32, h: u32) -> Vec<u8> {
        let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
        png(RgbaImage::from_fn(w, h, |_, _| {
            let v = rng.next();
            image::Rgba([v as u8, (v >> 8) as u8, (v >> 16) as u8, 255])
        }))
    }

    fn image_jpeg(content: Content) -> Vec<u8> {
        match content {
            Content::Image { jpeg } => jpeg,
            other => panic!("not an image: {other:?}"),
        }
    }

    fn text(text: &str, mime: &str) -> Content {
        Content::Text {
            text: text.into(),
            mime: mime.into(),
        }
    }

    fn document_of(bytes: &[u8], media_type: &str) -> Content {
        Content::Document {
            bytes: bytes.to_vec(),
            media_type: media_type.into(),
        }
    }

    #[test]
    fn markdown_is_text() {
        let p = content_of("# Title\n\nhé\n".into(), "text/markdown; charset=utf-8");
        assert_eq!(p, text("# Title\n\nhé\n", "text/markdown"));
    }

    #[test]
    fn invalid_utf8_text_is_lossy() {
        let p = content_of(b"a\xffb".to_vec(), "text/plain");
        assert_eq!(p, text("a\u{FFFD}b", "text/plain"));
    }

    #[test]
    fn json_is_text() {
        let p = content_of(br#"{"nodes":[]}"#.to_vec(), "application/json");
        assert_eq!(p, text(r#"{"nodes":[]}"#, "application/json"));
    }

    #[test]
    fn svg_is_text() {
        let svg = r#"<svg xmlns="http://www.w3.org/2000/svg"/>"#;
        let p = content_of(svg.into(), "image/svg+xml");
        assert_eq!(p, text(svg, "image/svg+xml"));
    }

    #[test]
    fn large_noisy_png_is_shrunk_below_limit() {
        let bytes = noise_png(2000, 1500);
        assert!(bytes.len() > MAX_IMAGE_BYTES, "noise should not compress");
        let jpeg = image_jpeg(content_of(bytes, "image/png"));
        assert!(jpeg.len() < 350_000, "{} bytes", jpeg.len());
        let decoded = image::load_from_memory_with_format(&jpeg, ImageFormat::Jpeg).unwrap();
        let (w, h) = decoded.dimensions();
        assert!(w.max(h) <= 1000, "{w}x{h}");
        // The aspect ratio is kept.
        assert_eq!(w * 3, h * 4, "{w}x{h}");
    }

    #[test]
    fn small_png_keeps_its_size() {
        let bytes = png(RgbaImage::from_fn(40, 30, |x, y| {
            image::Rgba([
                (x * 6) as u8,
                (y * 8) as u8,
                128,
                if x < 20 { 255 } else { 0 },
            ])
        }));
        let jpeg = image_jpeg(content_of(bytes, "image/png"));
        assert!(jpeg.len() < 350_000);
        let decoded = image::load_from_memory(&jpeg).unwrap();
        assert_eq!(decoded.dimensions(), (40, 30), "never upscaled nor shrunk");
        // Transparent pixels are composited onto white.
        let px = decoded.to_rgb8().get_pixel(35, 15).0;
        assert!(px.iter().all(|&c| c > 230), "{px:?}");
    }

    #[test]
    fn undecodable_image_falls_back_to_document() {
        let bytes = XorShift(42).bytes(1000);
        let p = content_of(bytes.clone(), "image/png");
        assert_eq!(p, document_of(&bytes, "image/png"));
    }

    #[test]
    fn pdf_is_document() {
        let mut bytes = b"%PDF-1.7\n".to_vec();
        bytes.extend(XorShift(7).bytes(5000));
        bytes.extend_from_slice(b"\n%%EOF\n");
        let p = content_of(bytes.clone(), "application/pdf");
        assert_eq!(p, document_of(&bytes, "application/pdf"));
    }

    #[test]
    fn document_at_limit_is_returned() {
        let bytes = vec![0u8; MAX_DOCUMENT_BYTES];
        let p = content_of(bytes.clone(), "application/octet-stream");
        assert_eq!(p, document_of(&bytes, "application/octet-stream"));
    }

    #[test]
    fn oversize_document_is_an_error() {
        let bytes = vec![0u8; MAX_DOCUMENT_BYTES + 1];
        let p = content_of(bytes, "application/pdf");
        assert_eq!(p, Content::TooLarge { size: 350_001 });
    }

    #[test]
    fn initial_params_depend_on_input_size() {
        assert_eq!(initial_params(100_000), (70, 1000));
        assert_eq!(initial_params(1_000_000), (60, 800));
        assert_eq!(initial_params(3_000_000), (50, 600));
    }
}
