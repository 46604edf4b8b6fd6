//! The knowledge graph of the official MCP memory server (`@modelcontextprotocol/server-memory`,
//! its `memory.jsonl`): one entity or relation per line. Each entity becomes a note of its
//! observations and outgoing relations, written in the observation and relation syntax the
//! note parser reads back (`- [category] text`, `- relation_type [[Target]]`).

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use crate::entity::entity_body;
use crate::filename::entity_type_folder;

use super::{id_and_source, json_lines, stable_id, Draft, Parsed, RecordError, RecordProblem};

const SOURCE: &str = "memory-json";

/// The type of entities whose records carry none, and of the stubs that hold relations
/// from names the file has no entity for.
const DEFAULT_TYPE: &str = "entity";

struct Entity {
    line: usize,
    name: String,
    entity_type: String,
    observations: Vec<String>,
    /// (relation type, target), in file order.
    relations: Vec<(String, String)>,
}

enum Record {
    Entity {
        name: String,
        entity_type: String,
        observations: Vec<String>,
    },
    Relation {
        from: String,
        to: String,
        relation_type: String,
    },
}

pub(super) fn parse(input: &str) -> Result<Parsed, Vec<RecordError>> {
    let mut errors = Vec::new();
    let mut entities: Vec<Entity> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    // Relations wait until every entity is read: the server appends them in any order.
    let mut relations = Vec::new();
    let mut entity_records = 0;
    let mut duplicates = 0;
    for record in json_lines(input) {
        let (line, value) = match record {
            Ok(found) => found,
            Err(e) => {
                errors.push(e);
                continue;
            }
        };
        match read(&value) {
            Ok(Record::Entity {
                name,
                entity_type,
                observations,
            }) => {
                entity_records += 1;
                let index = match by_name.get(&name) {
                    Some(&index) => {
                        // The server keeps names unique; a repeated one is the same entity
                        // written twice, so its observations belong to the first.
                        duplicates += 1;
                        index
                    }
                    None => {
                        by_name.insert(name.clone(), entities.len());
                        entities.push(Entity {
                            line,
                            name,
                            entity_type,
                            observations: Vec::new(),
                            relations: Vec::new(),
                        });
                        entities.len() - 1
                    }
                };
                let known = &mut entities[index].observations;
                for observation in observations {
                    if !known.contains(&observation) {
                        known.push(observation);
                    }
                }
            }
            Ok(Record::Relation {
                from,
                to,
                relation_type,
            }) => relations.push((line, from, to, relation_type)),
            Err(problem) => errors.push(RecordError::new(line, problem)),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    let relation_records = relations.len();
    let mut seen = HashSet::new();
    for (line, from, to, relation_type) in relations {
        if !seen.insert((from.clone(), to.clone(), relation_type.clone())) {
            duplicates += 1;
            continue;
        }
        // A relation from a name with no entity gets a stub note, so it is not lost.
        let index = *by_name.entry(from.clone()).or_insert_with(|| {
            entities.push(Entity {
                line,
                name: from,
                entity_type: DEFAULT_TYPE.into(),
                observations: Vec::new(),
                relations: Vec::new(),
            });
            entities.len() - 1
        });
        entities[index].relations.push((relation_type, to));
    }
    Ok(Parsed {
        drafts: entities.iter().map(draft).collect(),
        duplicates,
        counts: vec![
            ("entities", entity_records),
            ("relations", relation_records),
        ],
        default_folder: "",
    })
}

fn read(value: &Value) -> Result<Record, RecordProblem> {
    let object = value.as_object().ok_or(RecordProblem::NotAnObject)?;
    let kind = match object.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        // Hand-written files leave the kind out; a relation is known by its ends.
        None | Some(Value::Null) if has_any(object, &["from", "from_id"]) => "relation",
        None | Some(Value::Null) => "entity",
        Some(other) => return Err(RecordProblem::TypeNotAString(other.clone())),
    };
    match kind {
        "entity" => {
            let name = text(object, &["name", "entityName", "id"]).ok_or(RecordProblem::Unnamed)?;
            let entity_type =
                text(object, &["entityType", "entity_type"]).unwrap_or_else(|| DEFAULT_TYPE.into());
            let observations = match object.get("observations") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .enumerate()
                    .map(|(i, item)| match item {
                        Value::String(s) => Ok(observation(s)),
                        _ => Err(RecordProblem::Observation(i + 1)),
                    })
                    .collect::<Result<Vec<_>, _>>()?
                    .into_iter()
                    .flatten()
                    .collect(),
                Some(_) => return Err(RecordProblem::KeyNotAnArray("observations")),
            };
            Ok(Record::Entity {
                name,
                entity_type,
                observations,
            })
        }
        "relation" => {
            let from = text(object, &["from", "from_id"]);
            let to = text(object, &["to", "to_id"]);
            let relation_type = text(object, &["relationType", "relation_type"]);
            match (from, to, relation_type) {
                (Some(from), Some(to), Some(relation_type)) => Ok(Record::Relation {
                    from,
                    to,
                    relation_type,
                }),
                (from, to, relation_type) => {
                    let missing: Vec<&'static str> = [
                        ("from", from.is_none()),
                        ("to", to.is_none()),
                        ("relationType", relation_type.is_none()),
                    ]
                    .into_iter()
                    .filter_map(|(key, absent)| absent.then_some(key))
                    .collect();
                    Err(RecordProblem::RelationLacks(missing))
                }
            }
        }
        other => Err(RecordProblem::UnknownType(other.to_string())),
    }
}

fn has_any(object: &Map<String, Value>, keys: &[&str]) -> bool {
    keys.iter().any(|key| object.contains_key(*key))
}

/// The first of `keys` holding a non-blank string, on one line.
fn text(object: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter()
        .find_map(|key| object.get(*key).and_then(Value::as_str))
        .map(one_line)
        .filter(|s| !s.is_empty())
}

/// A list item ends at its line's end, so a line break inside a value becomes a space.
fn one_line(s: &str) -> String {
    s.split(['\r', '\n'])
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// An observation as the server kept it, on one line; `None` when blank.
fn observation(raw: &str) -> Option<String> {
    Some(one_line(raw)).filter(|text| !text.is_empty())
}

fn draft(entity: &Entity) -> Draft {
    let key = format!("{}/{}", entity.entity_type, entity.name);
    let id = stable_id(SOURCE, &key, "");
    let body = entity_body(
        &entity.name,
        entity.observations.iter().map(String::as_str),
        entity
            .relations
            .iter()
            .map(|(relation_type, to)| (relation_type.as_str(), to.as_str())),
    );
    Draft {
        metadata: id_and_source(&id, SOURCE),
        id,
        folder: entity_type_folder(&entity.entity_type),
        file_stem: entity.name.clone(),
        title: entity.name.clone(),
        note_type: entity.entity_type.clone(),
        body,
        line: entity.line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entity::observation_line;
    use crate::import::tests::{placed, refused};

    const MEMORY: &str = include_str!("../../../../tests/fixtures/import/memory.jsonl");
    const BAD: &str = include_str!("../../../../tests/fixtures/import/bad-memory.jsonl");

    fn by_title<'a>(parsed: &'a Parsed, title: &str) -> &'a Draft {
        parsed
            .drafts
            .iter()
            .find(|d| d.title == title)
            .unwrap_or_else(|| panic!("no draft titled {title}"))
    }

    #[test]
    fn every_entity_becomes_a_note_in_its_type_folder() {
        let parsed = parse(MEMORY).unwrap();
        let placed = placed(&parsed);
        assert_eq!(
            placed,
            [
                ("person", "Alice Smith", "Alice Smith", 1),
                ("organization", "Acme Corp", "Acme Corp", 2),
                ("concept", "Vector Search", "Vector Search", 4),
                ("person", "Bob Chen", "Bob Chen", 8),
                // The relation from a name the file has no entity for keeps a stub.
                ("entity", "Project Falcon", "Project Falcon", 10),
            ]
        );
        for draft in &parsed.drafts {
            assert_eq!(
                draft.note_type, draft.folder,
                "an entity's type is its folder"
            );
        }
        assert_eq!(parsed.counts, [("entities", 5), ("relations", 5)]);
        assert_eq!(
            parsed.duplicates, 2,
            "Alice written twice, works_at written twice"
        );
        assert_eq!(parsed.default_folder, "");
    }

    #[test]
    fn a_note_lists_observations_then_relations() {
        let parsed = parse(MEMORY).unwrap();
        let cases = [
            (
                "Alice Smith",
                "# Alice Smith\n\
                 - [note] Works at Acme Corp as a staff engineer\n\
                 - [note] Prefers tea (green, no sugar)\n\
                 - [note] Leads the #search-quality working group\n\
                 - [note] Speaks German\n\
                 - works_at [[Acme Corp]]\n\
                 - researches [[Vector Search]]\n",
            ),
            (
                "Vector Search",
                "# Vector Search\n\
                 - [idea] Hybrid ranking beats pure BM25 on long queries\n\
                 - [note] Needs an embedding model small enough for laptops\n",
            ),
            (
                "Bob Chen",
                "# Bob Chen\n- [note] Joined Acme Corp in 2024\n- \"reports to\" [[Alice Smith]]\n",
            ),
            (
                "Project Falcon",
                "# Project Falcon\n- owned_by [[Acme Corp]]\n",
            ),
        ];
        for (title, body) in cases {
            assert_eq!(by_title(&parsed, title).body, body, "{title}");
        }
    }

    #[test]
    fn ids_follow_type_and_name() {
        let parsed = parse(MEMORY).unwrap();
        let alice = by_title(&parsed, "Alice Smith");
        assert_eq!(alice.id, stable_id("memory-json", "person/Alice Smith", ""));
        let keys: Vec<&str> = alice.metadata.keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "source"]);
        assert_eq!(alice.metadata["id"], alice.id.as_str());
        assert_eq!(alice.metadata["source"], "memory-json");
    }

    #[test]
    fn observations_keep_their_category_or_get_note() {
        let cases = [
            ("Likes tea", Some("[note] Likes tea")),
            ("[idea] Use a trie", Some("[idea] Use a trie")),
            ("[tech stack] Rust", Some("[tech stack] Rust")),
            ("[x] done already", Some("[note] [x] done already")),
            ("[12:30] call", Some("[note] [12:30] call")),
            (
                "[link](https://example.com) text",
                Some("[note] [link](https://example.com) text"),
            ),
            ("[idea]", Some("[note] [idea]")),
            ("two\nlines\r\nhere", Some("[note] two lines here")),
            ("  \n ", None),
        ];
        for (raw, item) in cases {
            let line = observation(raw).map(|text| observation_line(&text));
            assert_eq!(
                line.as_deref(),
                item.map(|i| format!("- {i}")).as_deref(),
                "{raw:?}"
            );
        }
    }

    #[test]
    fn records_are_read_by_kind_or_shape() {
        let entity = |name: &str, entity_type: &str| (name.to_string(), entity_type.to_string());
        let cases = [
            (
                r#"{"type":"entity","name":"A","entityType":"person"}"#,
                Ok(entity("A", "person")),
            ),
            (
                r#"{"type":"entity","entityName":"B","entity_type":"tool"}"#,
                Ok(entity("B", "tool")),
            ),
            (r#"{"type":"entity","id":"C"}"#, Ok(entity("C", "entity"))),
            (
                r#"{"name":"D","entityType":"place"}"#,
                Ok(entity("D", "place")),
            ),
            (
                r#"{"type":"entity","entityType":"person"}"#,
                Err("entity has no name"),
            ),
            (
                r#"{"type":"entity","name":"  "}"#,
                Err("entity has no name"),
            ),
            (
                r#"{"type":"entity","name":"E","observations":"x"}"#,
                Err("observations is not an array"),
            ),
            (
                r#"{"type":"entity","name":"E","observations":["a",1]}"#,
                Err("observation 2 is not a string"),
            ),
            (
                r#"{"type":"relation","from":"A"}"#,
                Err("relation has no to, relationType"),
            ),
            (
                r#"{"from_id":"A","to_id":"B"}"#,
                Err("relation has no relationType"),
            ),
            (
                r#"{"type":"observation","entityName":"A"}"#,
                Err("unknown record type 'observation' (expected entity or relation)"),
            ),
            (r#"{"type":3}"#, Err("record type 3 is not a string")),
            (r#"["entity"]"#, Err("expected a JSON object")),
        ];
        for (line, expected) in cases {
            let value: Value = serde_json::from_str(line).unwrap();
            let got = match read(&value) {
                Ok(Record::Entity {
                    name, entity_type, ..
                }) => Ok((name, entity_type)),
                Ok(Record::Relation { .. }) => Ok(("relation".into(), String::new())),
                Err(problem) => Err(problem.to_string()),
            };
            assert_eq!(got, expected.map_err(String::from), "{line}");
        }
    }

    #[test]
    fn a_relation_written_without_kind_is_a_relation() {
        let parsed = parse(r#"{"from_id":"A","to_id":"B","relation_type":"knows"}"#).unwrap();
        assert_eq!(parsed.drafts[0].body, "# A\n- knows [[B]]\n");
        assert_eq!(parsed.counts, [("entities", 0), ("relations", 1)]);
    }

    #[test]
    fn every_bad_line_is_reported() {
        assert_eq!(
            refused(parse(BAD)),
            [
                "line 3: not valid JSON: expected `,` or `}` at column 61",
                "line 5: entity has no name",
            ]
        );
    }
}
