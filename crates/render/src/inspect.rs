//! `gitmem inspect` and the diagnostics tools: a note as the index sees it, and the rankings
//! behind a search, as text (the command) or JSON (the command's `--json`, the tools).

use serde_json::{json, Value};

use super::{iso_from_ms, Format, Rendered};
use engine::inspect::{NoteInspection, QueryInspection, RankedNote, Rankings};
use engine::read::ReadRefusal;
use engine::search::{FusedBy, Fusion, SearchMode, VectorRanking};
use engine::Outcome;

/// How much of a search document's text the text form shows.
const SHOWN_CHARS: usize = 160;

fn shortened(text: &str) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match flat.char_indices().nth(SHOWN_CHARS) {
        Some((i, _)) => format!("{}…", &flat[..i]),
        None => flat,
    }
}

fn short(checksum: Option<&str>) -> &str {
    checksum.map_or("none", |c| &c[..c.len().min(12)])
}

/// inspect_note's answer, or why there is none.
pub fn note(outcome: &Outcome<NoteInspection, ReadRefusal>, format: Format) -> Rendered {
    match outcome {
        Outcome::Done(inspection) => {
            Rendered::either(format, || note_text(inspection), || note_json(inspection))
        }
        Outcome::Refused(refusal) => {
            let message = match refusal {
                ReadRefusal::NotFound {
                    project,
                    identifier,
                    ..
                } => format!("Note not found: '{identifier}' in project '{project}'"),
                ReadRefusal::OutsideProject(refusal) => refusal.to_string(),
            };
            Rendered::either(
                format,
                || message.clone(),
                || json!({"error": "NOT_FOUND", "message": message}),
            )
        }
    }
}

fn freshness(inspection: &NoteInspection) -> &'static str {
    if inspection.fresh() {
        "fresh"
    } else {
        "stale"
    }
}

fn note_text(i: &NoteInspection) -> String {
    let note = &i.note;
    let mut out = format!(
        "{title}\n  id: {id}\n  permalink: {permalink}\n  path: {path}\n  project: {project}\n",
        title = note.title,
        id = note.id,
        permalink = note.permalink.as_deref().unwrap_or("-"),
        path = note.path,
        project = i.project,
    );
    out.push_str(&format!(
        "\nChecksums ({}):\n  file now:      {}\n  graph:         {}\n  search index:  {}\n  vectors:       {}\n",
        freshness(i),
        short(i.file_checksum.as_deref()),
        short(Some(&note.checksum)),
        short(i.indexed_checksum.as_deref()),
        short(i.vectors.checksum.as_deref()),
    ));
    out.push_str(&format!("\nSearch documents ({}):\n", i.documents.len()));
    for doc in &i.documents {
        let field = |name: &str| doc.get(name).and_then(Value::as_str).unwrap_or_default();
        out.push_str(&format!(
            "  {} [{}] {}\n",
            field("id"),
            field("type"),
            field("title")
        ));
        for name in ["aliases", "headings", "tags"] {
            if let Some(list) = doc
                .get(name)
                .and_then(Value::as_array)
                .filter(|l| !l.is_empty())
            {
                let items: Vec<&str> = list.iter().filter_map(Value::as_str).collect();
                out.push_str(&format!("    {name}: {}\n", items.join(", ")));
            }
        }
        let content = field("content");
        if !content.is_empty() {
            out.push_str(&format!("    content: {}\n", shortened(content)));
        }
    }
    let vectors = &i.vectors;
    let model = vectors
        .model
        .as_ref()
        .map_or("no model".to_string(), |(name, dims)| {
            format!("{name}, {dims} dimensions")
        });
    let when = vectors
        .embedded_ms
        .map_or("time not recorded".to_string(), iso_from_ms);
    let state = match (
        &vectors.checksum,
        vectors.current(i.indexed_checksum.as_deref()),
    ) {
        (None, _) => "none stored".to_string(),
        (Some(_), true) => format!("current, embedded {when}"),
        (Some(_), false) => format!("made from an older text, embedded {when}"),
    };
    out.push_str(&format!(
        "\nPassages ({}; vectors: {model}; {state}):\n",
        i.passages.len()
    ));
    for (n, passage) in i.passages.iter().enumerate() {
        out.push_str(&format!(
            "  {n}. [{}] {} {}\n     {}\n",
            short(Some(&passage.checksum)),
            if passage.has_vector {
                "vector"
            } else {
                "no vector"
            },
            passage
                .heading
                .as_deref()
                .map_or(String::new(), |h| format!("under '{h}'")),
            shortened(&passage.text),
        ));
    }
    out
}

fn note_json(i: &NoteInspection) -> Value {
    let note = &i.note;
    let vectors = &i.vectors;
    json!({
        "project": i.project,
        "id": note.id,
        "title": note.title,
        "permalink": note.permalink,
        "file_path": note.path,
        "checksums": {
            "file": i.file_checksum,
            "graph": note.checksum,
            "search_index": i.indexed_checksum,
            "vectors": vectors.checksum,
        },
        "fresh": i.fresh(),
        "search_documents": i.documents,
        "passages": i.passages.iter().enumerate().map(|(n, p)| json!({
            "index": n,
            "heading": p.heading,
            "text": p.text,
            "checksum": p.checksum,
            "has_vector": p.has_vector,
        })).collect::<Vec<_>>(),
        "vectors": {
            "model": vectors.model.as_ref().map(|(name, _)| name),
            "dimensions": vectors.model.as_ref().map(|(_, dims)| dims),
            "passages": vectors.passages,
            "current": vectors.current(i.indexed_checksum.as_deref()),
            "embedded_at": vectors.embedded_ms.map(iso_from_ms),
        },
    })
}

fn mode_name(mode: SearchMode) -> &'static str {
    match mode {
        SearchMode::Text => "text",
        SearchMode::Title => "title",
        SearchMode::Permalink => "permalink",
        SearchMode::Vector => "vector",
        SearchMode::Hybrid => "hybrid",
    }
}

/// Why a search has no vector ranking.
fn vector_absence(vector: &VectorRanking) -> Option<&'static str> {
    match vector {
        VectorRanking::Ranked(_) => None,
        VectorRanking::TextSearch => {
            Some("no vector ranking: the search ran as a text search (no embedding model is installed or chosen)")
        }
        VectorRanking::ModelUnavailable => {
            Some("no vector ranking: the chosen model could not be loaded (not installed yet?)")
        }
    }
}

/// The fusion's name and the vector ranking's weight in it.
fn fusion(fused_by: FusedBy) -> (&'static str, Option<f64>) {
    match fused_by {
        FusedBy::Lexical => ("lexical_only", None),
        FusedBy::Vector => ("vector_only", None),
        FusedBy::Hybrid {
            fusion,
            vector_weight,
        } => (
            match fusion {
                Fusion::Rrf => "rrf",
                Fusion::Score => "score",
                Fusion::VectorWeighted(_) => "rrf_weighted",
            },
            vector_weight,
        ),
    }
}

/// inspect_query's answer.
pub fn query(inspection: &QueryInspection, format: Format) -> Rendered {
    Rendered::either(format, || query_text(inspection), || query_json(inspection))
}

fn entries_text(out: &mut String, heading: &str, entries: &[RankedNote]) {
    out.push_str(&format!("\n{heading}\n"));
    if entries.is_empty() {
        out.push_str("  (nothing)\n");
    }
    for e in entries {
        out.push_str(&format!(
            "  {:>2}. {:>10.6}  {}  ({})\n",
            e.rank,
            e.score,
            e.title,
            e.permalink.as_deref().unwrap_or(&e.document)
        ));
    }
}

fn query_text(q: &QueryInspection) -> String {
    let mut out = format!("Query \"{}\" in project '{}'\n", q.query, q.project);
    let Some(r) = &q.rankings else {
        out.push_str(
            "Not a ranked query (boolean, or only stopwords): results in milli's order.\n",
        );
        let results: Vec<String> = q
            .response
            .results
            .iter()
            .enumerate()
            .map(|(i, r)| format!("  {:>2}. {}", i + 1, r.title))
            .collect();
        out.push_str(&results.join("\n"));
        out.push('\n');
        return out;
    };
    let e = &r.explanation;
    out.push_str(&format!("{} search\n", mode_name(e.mode)));
    if e.mode != SearchMode::Vector {
        entries_text(
            &mut out,
            "names (title, aliases, tags, permalink: summed IDF of the query's words)",
            &r.names,
        );
        entries_text(&mut out, "body (BM25 of the note's body)", &r.said);
        entries_text(
            &mut out,
            "lexical (names and body, scores summed)",
            &r.lexical,
        );
    }
    match vector_absence(&e.vector) {
        Some(why) => out.push_str(&format!("\n{why}\n")),
        None => entries_text(
            &mut out,
            "vector (0.7 × best passage + 0.3 × whole note, cosine)",
            &r.vector,
        ),
    }
    let (kind, weight) = fusion(e.fused_by);
    let mut how = kind.to_string();
    if let Some(weight) = weight {
        how.push_str(&format!(", vector vote {weight:.3}"));
    }
    if e.reranked {
        how.push_str(", then reranked");
    }
    entries_text(
        &mut out,
        &format!("fused ({how}): search_notes' order"),
        &r.fused,
    );
    out
}

fn entries_json(entries: &[RankedNote]) -> Value {
    Value::Array(
        entries
            .iter()
            .map(|e| {
                json!({
                    "rank": e.rank,
                    "score": e.score,
                    "title": e.title,
                    "permalink": e.permalink,
                    "file_path": e.file_path,
                    "document": e.document,
                })
            })
            .collect(),
    )
}

fn rankings_json(r: &Rankings) -> Value {
    let e = &r.explanation;
    let mut rankings = serde_json::Map::new();
    if e.mode != SearchMode::Vector {
        rankings.insert("names".into(), entries_json(&r.names));
        rankings.insert("body".into(), entries_json(&r.said));
        rankings.insert("lexical".into(), entries_json(&r.lexical));
    }
    rankings.insert(
        "vector".into(),
        match vector_absence(&e.vector) {
            Some(why) => json!({"absent": why}),
            None => entries_json(&r.vector),
        },
    );
    let (kind, weight) = fusion(e.fused_by);
    json!({
        "mode": mode_name(e.mode),
        "rankings": rankings,
        "fusion": {"kind": kind, "vector_weight": weight, "reranked": e.reranked},
        "fused": entries_json(&r.fused),
    })
}

fn query_json(q: &QueryInspection) -> Value {
    let mut v = json!({
        "project": q.project,
        "query": q.query,
        "ranked": q.rankings.is_some(),
        "results": q.response.results.iter().map(|r| json!({
            "title": r.title,
            "permalink": r.permalink,
            "file_path": r.file_path,
            "score": r.score,
        })).collect::<Vec<_>>(),
        "notice": q.response.notice,
    });
    if let (Some(r), Value::Object(map)) = (&q.rankings, &mut v) {
        if let Value::Object(more) = rankings_json(r) {
            map.extend(more);
        }
    }
    v
}
