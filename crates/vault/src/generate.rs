//! A deterministic sample vault for tests and benchmarks (`gitmem bench generate`).
//!
//! It has what real Obsidian and Basic Memory vaults have: nested folders, YAML front matter
//! with tags, types, aliases and statuses, prose with `[[wikilinks]]` (plain, `|alias`,
//! `#heading`), embeds, code blocks holding link-like text, `## Observations` and
//! `## Relations` sections (some pointing at notes that do not exist), unicode and accented
//! titles, notes without front matter, and a few image attachments that notes embed.
//!
//! The same `notes` and `seed` give the same files, byte for byte, on every platform: the
//! random numbers come from SplitMix64, not from a library whose sequence may change.

use std::path::Path;

const WORDS: &[&str] = &[
    "memory",
    "index",
    "search",
    "vault",
    "note",
    "graph",
    "link",
    "sync",
    "folder",
    "project",
    "context",
    "rust",
    "markdown",
    "parser",
    "token",
    "query",
    "filter",
    "cache",
    "journal",
    "permalink",
    "title",
    "relation",
    "observation",
    "tag",
    "schema",
    "latency",
    "throughput",
    "replica",
    "commit",
    "branch",
    "design",
    "decision",
    "meeting",
    "roadmap",
    "release",
    "bug",
    "fix",
    "test",
    "benchmark",
    "storage",
    "engine",
    "lmdb",
    "watcher",
    "poll",
    "checksum",
    "jitter",
    "canvas",
    "agent",
    "client",
    "server",
    "protocol",
    "session",
    "prompt",
    "resource",
    "template",
    "migration",
    "import",
    "export",
];
const CATEGORIES: &[&str] = &[
    "idea", "decision", "fact", "question", "tech", "design", "risk", "todo",
];
const RELATIONS: &[&str] = &[
    "relates_to",
    "implements",
    "depends_on",
    "part_of",
    "inspired_by",
    "contrasts_with",
];
const FOLDERS: &[&str] = &[
    "",
    "notes",
    "projects/alpha",
    "projects/beta",
    "people",
    "meetings/2025",
    "meetings/2026",
    "research/search",
    "research/sync",
    "journal",
    "specs",
    "archive/old",
];
const UNICODE_TITLES: &[&str] = &[
    "Café Design",
    "Über Sync",
    "日本語のメモ",
    "Zoë's Ideas",
    "Ελληνικά σημειώσεις",
    "Straße Index",
];
const NOTE_TYPES: &[&str] = &["note", "note", "spec", "meeting", "person"];
const STATUSES: &[&str] = &["draft", "active", "done"];
/// One image attachment for this many notes (and at least one).
const NOTES_PER_ATTACHMENT: usize = 50;
pub const DEFAULT_SEED: u64 = 7;

/// What to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VaultSpec {
    pub notes: usize,
    pub seed: u64,
}

/// What was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeneratedVault {
    pub notes: usize,
    pub attachments: usize,
}

impl GeneratedVault {
    pub fn files(&self) -> usize {
        self.notes + self.attachments
    }
}

/// SplitMix64: tiny, fast, and fixed forever, which is what determinism needs.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    fn range(&mut self, low: usize, high: usize) -> usize {
        low + (self.next() % (high - low + 1) as u64) as usize
    }

    /// True with probability `p`.
    fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.range(0, items.len() - 1)]
    }

    fn sentence(&mut self, words: usize) -> String {
        let text: Vec<&str> = (0..words).map(|_| self.pick(WORDS)).collect();
        let mut sentence = capitalize(&text.join(" "));
        sentence.push('.');
        sentence
    }
}

fn capitalize(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

fn attachment_name(k: usize) -> String {
    format!("figure-{k}.png")
}

/// Writes the vault into `out` (created if missing). Existing files with the same names are
/// replaced; nothing else in `out` is touched.
pub fn generate(out: &Path, spec: VaultSpec) -> std::io::Result<GeneratedVault> {
    let mut rng = Rng(spec.seed);
    let attachments = if spec.notes == 0 {
        0
    } else {
        spec.notes.div_ceil(NOTES_PER_ATTACHMENT)
    };
    let titles: Vec<String> = (0..spec.notes)
        .map(|i| {
            if i % 97 == 5 {
                format!("{} {i}", UNICODE_TITLES[(i / 97) % UNICODE_TITLES.len()])
            } else {
                let words: Vec<String> = (0..rng.range(2, 4))
                    .map(|_| capitalize(rng.pick(WORDS)))
                    .collect();
                format!("{} {i}", words.join(" "))
            }
        })
        .collect();
    for (i, title) in titles.iter().enumerate() {
        let folder = FOLDERS[i % FOLDERS.len()];
        let dir = out.join(folder);
        std::fs::create_dir_all(&dir)?;
        let text = note_text(&mut rng, i, title, &titles, attachments);
        let name = format!("{}.md", title.replace(['/', ':'], "-"));
        std::fs::write(dir.join(name), text)?;
    }
    if attachments > 0 {
        std::fs::create_dir_all(out.join("attachments"))?;
    }
    for k in 0..attachments {
        std::fs::write(out.join("attachments").join(attachment_name(k)), png(k))?;
    }
    Ok(GeneratedVault {
        notes: spec.notes,
        attachments,
    })
}

/// `count` paragraphs of about `words` words each, sentences from the vault's vocabulary:
/// text for timing an embedding model (`gitmem bench embed`), the same for the same seed.
pub fn passages(count: usize, words: usize, seed: u64) -> Vec<String> {
    let mut rng = Rng(seed);
    (0..count)
        .map(|_| {
            let mut sentences = Vec::new();
            let mut written = 0;
            while written < words {
                let n = rng.range(6, 18).min(words - written).max(1);
                sentences.push(rng.sentence(n));
                written += n;
            }
            sentences.join(" ")
        })
        .collect()
}

fn note_text(
    rng: &mut Rng,
    i: usize,
    title: &str,
    titles: &[String],
    attachments: usize,
) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut tags: Vec<&str> = (0..rng.range(0, 4)).map(|_| rng.pick(WORDS)).collect();
    tags.sort_unstable();
    tags.dedup();
    let without_front_matter = i % 11 == 3;
    if !without_front_matter {
        lines.push("---".into());
        lines.push(format!("title: \"{title}\""));
        lines.push(format!("type: {}", rng.pick(NOTE_TYPES)));
        if !tags.is_empty() {
            lines.push("tags:".into());
            lines.extend(tags.iter().map(|t| format!("  - {t}")));
        }
        if i.is_multiple_of(7) {
            let first = title.split(' ').next().unwrap_or(title);
            lines.push(format!("aliases: [\"{first} alias {i}\"]"));
        }
        if i.is_multiple_of(5) {
            lines.push(format!("status: {}", rng.pick(STATUSES)));
        }
        lines.push(format!("created: 2026-{:02}-{:02}", 1 + i % 12, 1 + i % 28));
        lines.push("---".into());
        lines.push(String::new());
    }
    lines.push(format!("# {title}"));
    lines.push(String::new());
    for _ in 0..rng.range(1, 4) {
        let mut paragraph = Vec::new();
        for _ in 0..rng.range(2, 6) {
            let words = rng.range(6, 18);
            let mut sentence = rng.sentence(words);
            if rng.chance(0.3) {
                let target = &titles[rng.range(0, titles.len() - 1)];
                let kind = rng.range(0, 19);
                sentence.push_str(&match kind {
                    0 | 1 => format!(" See [[{target}#Observations]]."),
                    2 | 3 => format!(" See [[{target}|that note]]."),
                    4 => format!(" ![[{target}]]"),
                    _ => format!(" See [[{target}]]."),
                });
            }
            paragraph.push(sentence);
        }
        lines.push(paragraph.join(" "));
        lines.push(String::new());
    }
    if attachments > 0 && i.is_multiple_of(13) {
        lines.push(format!("![[{}]]", attachment_name(i % attachments)));
        lines.push(String::new());
    }
    if rng.chance(0.2) {
        lines.push("```rust".into());
        lines.push("fn main() { println!(\"[[not a link]]\"); }".into());
        lines.push("```".into());
        lines.push(String::new());
    }
    lines.push("## Observations".into());
    for _ in 0..rng.range(1, 6) {
        let category = rng.pick(CATEGORIES);
        let words = rng.range(6, 18);
        let fact = rng.sentence(words);
        let tag = if rng.chance(0.5) {
            format!(" #{}", rng.pick(WORDS))
        } else {
            String::new()
        };
        let context = if rng.chance(0.2) {
            let words = rng.sentence(3).to_lowercase();
            format!(" ({})", words.trim_end_matches('.'))
        } else {
            String::new()
        };
        lines.push(format!("- [{category}] {fact}{tag}{context}"));
    }
    lines.push(String::new());
    lines.push("## Relations".into());
    for _ in 0..rng.range(0, 4) {
        let relation = rng.pick(RELATIONS);
        let target = if rng.chance(0.9) {
            titles[rng.range(0, titles.len() - 1)].clone()
        } else {
            format!("Missing Note {}", rng.range(0, 99_999))
        };
        lines.push(format!("- {relation} [[{target}]]"));
    }
    lines.push(String::new());
    lines.join("\n")
}

/// A small PNG whose pixels depend on `k`, so attachments differ and checksums tell them apart.
fn png(k: usize) -> Vec<u8> {
    let image = image::RgbImage::from_fn(16, 12, |x, y| {
        image::Rgb([(x * 16) as u8, (y * 20) as u8, (k * 37 % 256) as u8])
    });
    let mut bytes = std::io::Cursor::new(Vec::new());
    image
        .write_to(&mut bytes, image::ImageFormat::Png)
        .expect("encoding a PNG in memory cannot fail");
    bytes.into_inner()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
        let mut out: Vec<(String, Vec<u8>)> = walkdir::WalkDir::new(dir)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                let relative = e.path().strip_prefix(dir).unwrap();
                (
                    relative.to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        out.sort();
        out
    }

    #[test]
    fn the_same_spec_gives_the_same_bytes_and_another_seed_does_not() {
        let spec = VaultSpec {
            notes: 120,
            seed: DEFAULT_SEED,
        };
        let (a, b, c) = (
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
            tempfile::tempdir().unwrap(),
        );
        generate(a.path(), spec).unwrap();
        generate(b.path(), spec).unwrap();
        generate(c.path(), VaultSpec { seed: 8, ..spec }).unwrap();
        assert_eq!(files(a.path()), files(b.path()));
        assert_ne!(files(a.path()), files(c.path()));
    }

    #[test]
    fn the_vault_has_every_feature_real_vaults_have() {
        let dir = tempfile::tempdir().unwrap();
        let made = generate(
            dir.path(),
            VaultSpec {
                notes: 200,
                seed: DEFAULT_SEED,
            },
        )
        .unwrap();
        let all = files(dir.path());
        assert_eq!(all.len(), made.files());
        assert_eq!(made.attachments, 4);
        let notes: Vec<(&str, String)> = all
            .iter()
            .filter(|(p, _)| p.ends_with(".md"))
            .map(|(p, b)| (p.as_str(), String::from_utf8(b.clone()).unwrap()))
            .collect();
        assert_eq!(notes.len(), 200);
        let any = |what: &str, f: &dyn Fn(&str, &str) -> bool| {
            assert!(notes.iter().any(|(p, t)| f(p, t)), "no note has {what}");
        };
        any("a nested folder", &|p, _| p.matches('/').count() >= 2);
        any("a note at the root", &|p, _| !p.contains('/'));
        any("no front matter", &|_, t| !t.starts_with("---\n"));
        any("tags", &|_, t| t.contains("\ntags:\n  - "));
        any("aliases", &|_, t| t.contains("\naliases: [\""));
        any("a status", &|_, t| t.contains("\nstatus: "));
        any("a type", &|_, t| t.contains("\ntype: spec\n"));
        any("an observation", &|_, t| t.contains("\n- [fact] "));
        any("a relation", &|_, t| t.contains("\n- depends_on [["));
        any("a link to a missing note", &|_, t| {
            t.contains("[[Missing Note ")
        });
        any("an aliased link", &|_, t| t.contains("|that note]]"));
        any("a heading link", &|_, t| t.contains("#Observations]]"));
        any("an embedded note", &|_, t| t.contains(" ![["));
        any("an embedded attachment", &|_, t| t.contains("![[figure-"));
        any("a code block with a fake link", &|_, t| {
            t.contains("```rust\nfn main() { println!(\"[[not a link]]\"); }")
        });
        any("an accented title", &|p, _| p.contains("Café Design"));
        any("a CJK title", &|p, _| p.contains("日本語のメモ"));
        assert!(all
            .iter()
            .filter(|(p, _)| p.starts_with("attachments/"))
            .all(|(_, bytes)| bytes.starts_with(b"\x89PNG")));
    }

    #[test]
    fn passages_have_the_words_asked_and_follow_the_seed() {
        let made = passages(3, 40, 1);
        assert_eq!(made.len(), 3);
        for p in &made {
            assert_eq!(p.split_whitespace().count(), 40, "{p}");
        }
        assert_eq!(made, passages(3, 40, 1));
        assert_ne!(made, passages(3, 40, 2));
    }

    #[test]
    fn an_empty_vault_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let made = generate(dir.path(), VaultSpec { notes: 0, seed: 1 }).unwrap();
        assert_eq!(made.files(), 0);
        assert!(files(dir.path()).is_empty());
    }
}
