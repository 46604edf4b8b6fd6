//! The schema tools (Picoschema) in process: schema_validate of one note, of a type and of
//! every type a schema covers, with schemas inline, referenced or found by type; schema_infer's
//! thresholds; schema_diff's drift; the guidance that replaces a report, as text and as JSON;
//! and write_note under `validation: strict` and `warn`.

use std::fs;

use serde_json::json;

use crate::Harness;

const PERSON_SCHEMA: &str = "---\ntitle: Person\ntype: schema\nentity: Person\nversion: 1\nschema:\n  name: string, full name\n  role?: string, job title or position\n  works_at?: Organization, employer\n  expertise?(array): string, areas of knowledge\nsettings:\n  validation: warn\n---\n\n# Person\n";

const PAUL: &str = "---\ntitle: Paul Graham\ntype: Person\n---\n\n# Paul Graham\n\n- [name] Paul Graham\n- [role] Essayist\n- [expertise] Startups\n- [expertise] Lisp\n- [fact] Co-created Viaweb\n- works_at [[Y Combinator]]\n- founded [[Viaweb]]\n";

const NAMELESS: &str =
    "---\ntitle: Nameless\ntype: Person\n---\n\n# Nameless\n\n- [role] Unknown\n";

const YC: &str = "---\ntitle: Y Combinator\ntype: organization\n---\n\n# Y Combinator\n";

/// A root whose default project holds these (path, text) files, indexed.
fn project(files: &[(&str, &str)]) -> Harness {
    let h = Harness::new();
    for (path, text) in files {
        let file = h.main_dir().join(path);
        fs::create_dir_all(file.parent().unwrap()).unwrap();
        fs::write(file, text).unwrap();
    }
    h.sync();
    h
}

fn people() -> Harness {
    project(&[
        ("schema/Person.md", PERSON_SCHEMA),
        ("people/Paul Graham.md", PAUL),
        ("people/Nameless.md", NAMELESS),
        ("orgs/Y Combinator.md", YC),
    ])
}

#[test]
fn validate_checks_every_note_of_a_type_and_warns_in_warn_mode() {
    let h = people();
    let text = h.text("schema_validate", json!({"note_type": "Person"}));
    assert_eq!(
        text,
        "# Schema Validation: person\n\nNotes: 2 | Valid: 2 | Warnings: 1 | Errors: 0\n\n\
         - **Nameless** — valid\n  - warning: Missing required field: name (expected [name] observation)\n\
         - **Paul Graham** — valid"
    );
    let report = h.json("schema_validate", json!({"note_type": "person"}));
    assert_eq!(report["note_type"], "person");
    assert_eq!(
        [
            &report["total_notes"],
            &report["total_entities"],
            &report["valid_count"],
            &report["warning_count"],
            &report["error_count"]
        ],
        [&json!(2), &json!(2), &json!(2), &json!(1), &json!(0)]
    );
    assert_eq!(report["type_summaries"], json!([]));
    let paul = &report["results"][1];
    assert_eq!(paul["note_identifier"], "Paul Graham");
    assert_eq!(paul["schema_entity"], "Person");
    assert_eq!(paul["passed"], true);
    assert_eq!(paul["unmatched_observations"], json!({"fact": 1}));
    assert_eq!(paul["unmatched_relations"], json!(["founded"]));
    assert_eq!(
        paul["field_results"][3],
        json!({"field_name": "expertise", "field_type": "string", "required": false, "status": "present", "values": ["Startups", "Lisp"]})
    );
    let nameless = &report["results"][0];
    assert_eq!(nameless["field_results"][0]["status"], "missing");
    assert_eq!(
        nameless["field_results"][0]["message"],
        "Missing required field: name (expected [name] observation)"
    );
}

#[test]
fn validate_names_one_note_by_identifier() {
    let h = people();
    let one = h.json("schema_validate", json!({"identifier": "people/nameless"}));
    assert_eq!(one["note_type"], "person");
    assert_eq!(
        (one["total_entities"].as_u64(), one["total_notes"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(one["results"][0]["warnings"].as_array().unwrap().len(), 1);
    let missing = h.text("schema_validate", json!({"identifier": "nobody"}));
    assert!(
        missing.starts_with("# No Notes Found of Type 'unknown'\n"),
        "{missing}"
    );
    let untyped = h.text("schema_validate", json!({"identifier": "Y Combinator"}));
    assert!(
        untyped.starts_with("# No Schema Found for 'organization'\n"),
        "{untyped}"
    );
}

#[test]
fn validate_without_arguments_covers_every_type_a_schema_names() {
    let meeting = "---\ntitle: Meeting\ntype: schema\nentity: Meeting\nschema:\n  attendees(array): string\n---\n";
    let h = project(&[
        ("schema/Person.md", PERSON_SCHEMA),
        ("schema/Meeting.md", meeting),
        ("people/Paul Graham.md", PAUL),
    ]);
    let text = h.text("schema_validate", json!({}));
    assert_eq!(
        text,
        "# Schema Validation: all\n\nNotes: 1 | Valid: 1 | Warnings: 0 | Errors: 0\n\n\
         ## By Type\n\n- **Meeting**: no notes\n- **Person**: 1/1 valid\n\n- **Paul Graham** — valid"
    );
    let report = h.json("schema_validate", json!({}));
    assert!(report.get("note_type").is_none(), "{report}");
    assert_eq!(
        report["type_summaries"][0],
        json!({"note_type": "Meeting", "total_notes": 0, "total_entities": 0, "valid_count": 0, "warning_count": 0, "error_count": 0})
    );

    let bare = project(&[("people/Paul Graham.md", PAUL)]);
    let none = bare.text("schema_validate", json!({}));
    assert!(
        none.starts_with("# No Schemas Defined\n\n`schema_validate` was called without"),
        "{none}"
    );
    assert_eq!(
        bare.json("schema_validate", json!({})),
        json!({"error": "No schemas defined in this project"})
    );
}

#[test]
fn validate_answers_with_guidance_when_notes_or_schemas_are_missing() {
    let h = people();
    let no_notes = h.text("schema_validate", json!({"note_type": "Meeting"}));
    assert!(
        no_notes
            .starts_with("# No Notes Found of Type 'Meeting'\n\n`schema_validate` found no notes"),
        "{no_notes}"
    );
    assert_eq!(
        h.json("schema_validate", json!({"note_type": "Meeting"})),
        json!({"error": "No notes found of type 'Meeting'"})
    );
    let no_schema = h.text("schema_validate", json!({"note_type": "organization"}));
    assert!(
        no_schema.starts_with("# No Schema Found for 'organization'\n"),
        "{no_schema}"
    );
    assert!(
        no_schema.contains("title: Organization\ntype: schema\nentity: organization\n"),
        "{no_schema}"
    );
    assert_eq!(
        h.json("schema_diff", json!({"note_type": "organization"})),
        json!({"error": "No schema found for type 'organization'"})
    );
}

#[test]
fn a_note_own_schema_wins_over_the_one_it_names_which_wins_over_its_type() {
    let meeting = "---\ntitle: Meeting\ntype: schema\nentity: Meeting\nschema:\n  attendees(array): string\n  decisions(array): string\nsettings:\n  validation: strict\n---\n";
    let inline = "---\ntitle: Design Review\ntype: Person\nschema:\n  topic: string\n  outcome?: string\n---\n\n- [topic] versioning\n";
    let referenced =
        "---\ntitle: Kickoff\ntype: Person\nschema: Meeting\n---\n\n- [attendees] Alice\n";
    let by_title = "---\ntitle: Grace Hopper\nschema: person\n---\n\n- [name] Grace\n";
    let h = project(&[
        ("schema/Person.md", PERSON_SCHEMA),
        ("schema/Meeting.md", meeting),
        ("notes/Design Review.md", inline),
        ("notes/Kickoff.md", referenced),
        ("notes/Grace Hopper.md", by_title),
    ]);
    let check = |identifier: &str| {
        h.json("schema_validate", json!({"identifier": identifier}))["results"][0].clone()
    };
    let inline = check("Design Review");
    assert_eq!(
        (inline["schema_entity"].as_str(), inline["passed"].as_bool()),
        (Some("Person"), Some(true))
    );
    assert_eq!(inline["field_results"][0]["field_name"], "topic");
    let kickoff = check("Kickoff");
    assert_eq!(kickoff["schema_entity"], "Meeting");
    assert_eq!(kickoff["passed"], false);
    assert_eq!(
        kickoff["errors"],
        json!(["Missing required field: decisions (expected [decisions] observation)"])
    );
    assert_eq!(check("Grace Hopper")["schema_entity"], "Person");
    let text = h.text("schema_validate", json!({"identifier": "Kickoff"}));
    assert!(
        text.contains("- **Kickoff** — INVALID\n  - error: Missing required field: decisions"),
        "{text}"
    );
}

#[test]
fn a_schema_with_an_unknown_validation_mode_is_reported_not_guessed() {
    let off = "---\ntitle: Loose\ntype: schema\nentity: Loose\nschema:\n  name: string\nsettings:\n  validation: off\n---\n";
    let note = "---\ntitle: One\ntype: Loose\n---\n\n- [name] one\n";
    let h = project(&[("schema/Loose.md", off), ("notes/One.md", note)]);
    let text = h.text("schema_validate", json!({"note_type": "Loose"}));
    assert!(
        text.starts_with("# Schema Validation Failed\n\nError validating schemas: Invalid settings.validation value 'off'; expected one of: 'warn', 'strict', or 'error' (alias for 'strict')\n"),
        "{text}"
    );
    let diff = h.json("schema_diff", json!({"note_type": "Loose"}));
    assert!(
        diff["error"]
            .as_str()
            .unwrap()
            .starts_with("Schema diff failed: Invalid settings.validation value 'off'"),
        "{diff}"
    );
    // Such a schema does not stop writes.
    h.write_with("Two", "notes", "no fields", json!({"note_type": "Loose"}));
}

/// `n` notes of type `person`: every one has a name, `with_role` a role, the first three work
/// at Y Combinator, the first two have two hobbies.
fn crowd(n: usize, with_role: usize) -> Harness {
    let mut files = vec![("orgs/Y Combinator.md".to_string(), YC.to_string())];
    for i in 0..n {
        let mut body = format!("---\ntitle: P{i}\ntype: person\n---\n\n- [name] P{i}\n");
        if i < with_role {
            body.push_str("- [role] engineer\n");
        }
        if i < 3 {
            body.push_str("- works_at [[Y Combinator]]\n");
        }
        if i < 2 {
            body.push_str("- [hobby] chess\n- [hobby] go\n");
        }
        files.push((format!("people/P{i}.md"), body));
    }
    let refs: Vec<(&str, &str)> = files
        .iter()
        .map(|(p, t)| (p.as_str(), t.as_str()))
        .collect();
    project(&refs)
}

#[test]
fn infer_sorts_fields_into_required_optional_and_excluded_by_threshold() {
    let h = crowd(10, 5);
    let text = h.text("schema_infer", json!({"note_type": "Person"}));
    assert_eq!(
        text,
        "# Schema Inference: person\n\nNotes analyzed: 10\n\n## Suggested Schema\n\n```yaml\n---\n\
         title: Person\ntype: schema\nentity: person\nversion: 1\nschema:\n  name: string\n  role?: string\n  \
         works_at?: Organization\n---\n```\n\n## Field Frequencies\n\n\
         - **name** (observation) — 100% (10/10) [required] (e.g. P0, P1, P2)\n\
         - **role** (observation) — 50% (5/10) [optional] (e.g. engineer)\n\
         - **hobby** (observation) — 20% (2/10) [optional] (e.g. chess, go)\n\
         - **works_at** (relation) — 30% (3/10) [optional] (e.g. Y Combinator)\n\n\
         ## Excluded (below threshold)\n\n- hobby\n"
    );
    let low = h.json(
        "schema_infer",
        json!({"note_type": "person", "threshold": 0.2}),
    );
    assert_eq!(
        low["suggested_schema"],
        json!({"name": "string", "role?": "string", "hobby?(array)": "string", "works_at?": "Organization"})
    );
    assert_eq!(low["suggested_required"], json!(["name"]));
    assert_eq!(
        low["suggested_optional"],
        json!(["role", "hobby", "works_at"])
    );
    assert_eq!(low["excluded"], json!([]));
    assert_eq!(
        low["field_frequencies"][3],
        json!({"name": "works_at", "source": "relation", "count": 3, "total": 10, "percentage": 0.3, "sample_values": ["Y Combinator"], "is_array": false, "target_type": "organization"})
    );
    let strict = h.json(
        "schema_infer",
        json!({"note_type": "person", "threshold": "0.6"}),
    );
    assert_eq!(strict["suggested_schema"], json!({"name": "string"}));
}

#[test]
fn infer_answers_with_guidance_when_no_field_is_common_enough() {
    let h = crowd(2, 0);
    let text = h.text("schema_infer", json!({"note_type": "organization"}));
    assert!(
        text.starts_with("# No Schema Pattern Found\n\nAnalyzed 1 notes of type 'organization'"),
        "{text}"
    );
    assert!(text.contains("(threshold: 25%)"), "{text}");
    assert_eq!(
        h.json("schema_infer", json!({"note_type": "organization"})),
        json!({"error": "No schema pattern found for 'organization' (threshold: 25%)"})
    );
    let none = h.json("schema_infer", json!({"note_type": "ghost"}));
    assert_eq!(
        (
            none["notes_analyzed"].as_u64(),
            none["suggested_schema"].clone()
        ),
        (Some(0), json!({}))
    );
}

#[test]
fn diff_reports_new_dropped_and_changed_fields_or_no_drift() {
    let h = crowd(10, 10);
    let schema = |fields: &str| {
        format!("---\ntitle: Person\ntype: schema\nentity: Person\nschema:\n{fields}---\n")
    };
    fs::create_dir_all(h.main_dir().join("schema")).unwrap();
    fs::write(
        h.main_dir().join("schema/Person.md"),
        schema("  name: string\n  role: string\n  works_at?: Organization\n  hobby?: string\n"),
    )
    .unwrap();
    h.sync();
    let none = h.text("schema_diff", json!({"note_type": "Person"}));
    assert_eq!(
        none,
        "# Schema Drift: Person\n\n## Cardinality Changes\n\n- hobby: schema declares single-value but usage is typically array\n"
    );
    fs::write(h.main_dir().join("schema/Person.md"), schema("  name: string\n  works_at?: Organization\n  hobby?(array): string\n  email?: string\n")).unwrap();
    h.sync();
    let text = h.text("schema_diff", json!({"note_type": "person"}));
    assert_eq!(
        text,
        "# Schema Drift: person\n\n## New Fields (in notes but not in schema)\n\n- **role** (observation) — 100% (10/10)\n\n\
         ## Dropped Fields (in schema but rare in notes)\n\n- **email** (observation) — 0% (0/10)\n"
    );
    let drift = h.json("schema_diff", json!({"note_type": "person"}));
    assert_eq!(drift["schema_found"], true);
    assert_eq!(
        drift["dropped_fields"],
        json!([{"name": "email", "source": "observation", "count": 0, "total": 10, "percentage": 0.0}])
    );
    assert_eq!(drift["cardinality_changes"], json!([]));
    fs::write(
        h.main_dir().join("schema/Person.md"),
        schema(
            "  name: string\n  role: string\n  works_at?: Organization\n  hobby?(array): string\n",
        ),
    )
    .unwrap();
    h.sync();
    assert_eq!(
        h.text("schema_diff", json!({"note_type": "person"})),
        "# Schema Drift: person\n\nNo drift detected — schema matches actual usage."
    );
}

fn strict_person() -> Harness {
    let strict = PERSON_SCHEMA.replace("validation: warn", "validation: strict");
    project(&[("schema/Person.md", strict.as_str())])
}

#[test]
fn write_note_refuses_a_note_its_strict_schema_fails_and_writes_nothing() {
    let h = strict_person();
    let args = json!({"title": "Ada", "directory": "people", "note_type": "person", "content": "- [role] Countess\n"});
    let text = h.refused("write_note", args.clone());
    assert!(
        text.starts_with("# Error: Note does not match its schema\n\n"),
        "{text}"
    );
    assert!(
        text.contains("- Missing required field: name (expected [name] observation)"),
        "{text}"
    );
    assert!(!h.main_dir().join("people/Ada.md").exists());
    let refused = h.refused_json("write_note", args.clone());
    assert_eq!(refused["error"], "SCHEMA_VALIDATION_FAILED");
    assert_eq!(refused["schema"], "Person");
    assert_eq!(
        refused["errors"],
        json!(["Missing required field: name (expected [name] observation)"])
    );

    let mut fixed = args;
    fixed["content"] = json!("- [name] Ada Lovelace\n- [role] Countess\n");
    assert!(h.text("write_note", fixed).starts_with("# Created note"));
    assert!(h.main_dir().join("people/Ada.md").exists());
    // A schema note written a moment ago applies to the very next write.
    h.write_with(
        "Meeting",
        "schema",
        "# Meeting",
        json!({"note_type": "schema", "metadata": {"entity": "Meeting", "schema": {"attendees(array)": "string"}, "settings": {"validation": "strict"}}}),
    );
    assert!(
        h.main_dir().join("schema/Meeting.md").exists(),
        "a schema note is not checked against its own schema"
    );
    let meeting = h.refused("write_note", json!({"title": "Standup", "directory": "meetings", "note_type": "meeting", "content": "- [topic] planning"}));
    assert!(
        meeting.contains("- Missing required field: attendees (expected [attendees] observation)"),
        "{meeting}"
    );
    // A note of another type, and one whose own schema is lenient, are written as given.
    h.write_with(
        "Acme",
        "orgs",
        "- [sector] tools",
        json!({"note_type": "organization"}),
    );
    h.write_with(
        "Bob",
        "people",
        "---\nschema:\n  name: string\n---\n- [role] x",
        json!({"note_type": "person"}),
    );
}

#[test]
fn write_note_under_a_warn_schema_writes_and_answers_as_usual() {
    let h = people();
    let text = h.text("write_note", json!({"title": "Ada", "directory": "people", "note_type": "Person", "content": "- [role] Countess\n"}));
    assert!(text.starts_with("# Created note\n"), "{text}");
    assert!(!text.contains("Missing"), "{text}");
    let report = h.json("schema_validate", json!({"identifier": "Ada"}));
    assert_eq!(report["warning_count"], 1);
}
