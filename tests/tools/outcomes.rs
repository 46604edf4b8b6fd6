//! The service's typed outcomes, below the tools: what each workflow did, or which refusal it
//! gave, as values a caller matches, not as rendered text.

use engine::edit::{EditNoteRequest, EditRefusal};
use engine::error::{EditInputError, QueryError};
use engine::read::{Page, ReadRefusal};
use engine::relocate::{
    DeleteNoteRequest, DeleteRefusal, Deleted, MoveNoteRequest, MoveRefusal, Moved,
};
use engine::scope::ProjectChoice;
use engine::write::{WriteNoteRequest, WriteRefusal};
use engine::{Outcome, OutsideProject, PathArg, ServiceError, UserError};
use note::edit::EditError;

use super::Harness;

fn main_project() -> ProjectChoice {
    ProjectChoice::named(Some("main"))
}

fn write(h: &Harness, title: &str, directory: &str, content: &str) {
    let request = WriteNoteRequest {
        title: title.into(),
        content: content.into(),
        directory: directory.into(),
        ..Default::default()
    };
    match h.app().write_note(&main_project(), &request).unwrap() {
        Outcome::Done(written) => assert!(written.created),
        Outcome::Refused(r) => panic!("write of {title} refused: {r:?}"),
    }
}

#[test]
fn writing_twice_is_refused_as_already_existing_and_a_path_outside_as_outside() {
    let h = Harness::new();
    write(&h, "Plans", "notes", "# Plans\n\nfirst");
    let again = WriteNoteRequest {
        title: "Plans".into(),
        content: "second".into(),
        directory: "notes".into(),
        ..Default::default()
    };
    match h.app().write_note(&main_project(), &again).unwrap() {
        Outcome::Refused(WriteRefusal::AlreadyExists {
            existing_path,
            permalink,
            ..
        }) => {
            assert_eq!(existing_path, "notes/Plans.md");
            assert_eq!(permalink, "notes/plans");
        }
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    let outside = WriteNoteRequest {
        directory: "../elsewhere".into(),
        ..again
    };
    match h.app().write_note(&main_project(), &outside).unwrap() {
        Outcome::Refused(WriteRefusal::OutsideProject(refusal)) => {
            assert_eq!(
                refusal,
                OutsideProject::new(PathArg::Directory, "../elsewhere")
            )
        }
        other => panic!("expected OutsideProject, got {other:?}"),
    }
}

#[test]
fn a_missing_note_is_refused_with_related_notes_to_suggest() {
    let h = Harness::new();
    write(
        &h,
        "Sync Design",
        "notes",
        "# Sync Design\n\nhow the sync works",
    );
    let outcome = h
        .app()
        .read_note(&main_project(), "sync", Page::default())
        .unwrap();
    let Outcome::Refused(ReadRefusal::NotFound {
        related, project, ..
    }) = outcome
    else {
        panic!("expected NotFound, got {outcome:?}");
    };
    assert_eq!(project, "main");
    assert_eq!(related[0].title, "Sync Design");
    match h
        .app()
        .read_note(&main_project(), "Sync Design", Page::default())
    {
        Ok(Outcome::Done(file)) => assert!(file.text.contains("how the sync works")),
        other => panic!("expected the note, got {other:?}"),
    }
}

#[test]
fn an_edit_that_does_not_apply_names_why() {
    let h = Harness::new();
    write(&h, "Log", "", "# Log\n\nentry one");
    let request = EditNoteRequest {
        identifier: "Log".into(),
        operation: "find_replace".into(),
        content: "two".into(),
        find_text: Some("entry three".into()),
        ..Default::default()
    };
    match h.app().edit_note(&main_project(), &request).unwrap() {
        Outcome::Refused(EditRefusal::NotApplicable {
            error: EditError::TextNotFound(text),
            ..
        }) => assert_eq!(text, "entry three"),
        other => panic!("expected TextNotFound, got {other:?}"),
    }
    let unknown = EditNoteRequest {
        operation: "rewrite".into(),
        ..request
    };
    match h.app().edit_note(&main_project(), &unknown) {
        Err(e @ ServiceError::User(UserError::Edit(EditInputError::UnknownOperation(_)))) => {
            let message = e.to_string();
            assert!(
                message.starts_with("Invalid operation 'rewrite'"),
                "{message}"
            )
        }
        other => panic!("expected an invalid-input error, got {other:?}"),
    }
}

#[test]
fn move_refusals_are_values_and_a_folder_move_reports_each_file() {
    let h = Harness::new();
    write(&h, "One", "inbox", "# One");
    write(&h, "Two", "inbox", "# Two");
    let refusal = |request: MoveNoteRequest| match h.app().move_note(&main_project(), &request) {
        Ok(Outcome::Refused(r)) => r,
        other => panic!("expected a refusal for {request:?}, got {other:?}"),
    };
    let one = |path: Option<&str>, folder: Option<&str>| MoveNoteRequest {
        identifier: "One".into(),
        destination_path: path.map(String::from),
        destination_folder: folder.map(String::from),
        is_directory: false,
    };
    let cases = [
        (
            one(Some("a/One.md"), Some("a")),
            MoveRefusal::BothDestinations,
        ),
        (one(None, None), MoveRefusal::MissingDestination),
        (
            one(Some("../One.md"), None),
            MoveRefusal::OutsideProject(OutsideProject::new(PathArg::Destination, "../One.md")),
        ),
        (
            one(Some("inbox/Two.md"), None),
            MoveRefusal::DestinationExists {
                destination: "inbox/Two.md".into(),
            },
        ),
        (
            one(Some("inbox/One.txt"), None),
            MoveRefusal::ExtensionMismatch {
                destination: "txt".into(),
                source: "md".into(),
            },
        ),
        (
            one(Some("inbox/One.md"), None),
            MoveRefusal::SameAsSource {
                destination: "inbox/One.md".into(),
            },
        ),
    ];
    for (request, expected) in cases {
        assert_eq!(refusal(request), expected);
    }
    let folder = MoveNoteRequest {
        identifier: "inbox".into(),
        destination_path: Some("archive".into()),
        destination_folder: None,
        is_directory: true,
    };
    match h.app().move_note(&main_project(), &folder).unwrap() {
        Outcome::Done(Moved::Folder(batch)) => {
            assert_eq!((batch.total, batch.done.len()), (2, 2));
            assert!(batch.failed.is_empty());
        }
        other => panic!("expected a folder move, got {other:?}"),
    }
    assert!(h.main_dir().join("archive/One.md").exists());
}

#[test]
fn deleting_names_what_went_and_an_unknown_note_is_not_found() {
    let h = Harness::new();
    write(&h, "Gone", "", "# Gone");
    let delete = |identifier: &str| {
        let request = DeleteNoteRequest {
            identifier: identifier.into(),
            is_directory: false,
        };
        h.app().delete_note(&main_project(), &request).unwrap()
    };
    match delete("Gone") {
        Outcome::Done(Deleted::Note(note)) => assert_eq!(note.path, "Gone.md"),
        other => panic!("expected the note, got {other:?}"),
    }
    assert!(matches!(
        delete("Gone"),
        Outcome::Refused(DeleteRefusal::NotFound)
    ));
    assert!(matches!(
        delete("../x"),
        Outcome::Refused(DeleteRefusal::OutsideProject(_))
    ));
}

#[test]
fn an_unknown_project_is_a_project_error_whatever_the_call() {
    let h = Harness::new();
    let choice = ProjectChoice::named(Some("nowhere"));
    let error = h
        .app()
        .read_note(&choice, "x", Page::default())
        .unwrap_err();
    assert!(
        error.is_project_choice() && error.is_user_error(),
        "{error}"
    );
}

#[test]
fn a_graph_walk_that_is_no_longer_wanted_stops() {
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    let h = Harness::new();
    write(&h, "Hub", "", "# Hub\n\n- relates_to [[Spoke]]");
    write(&h, "Spoke", "", "# Spoke");
    let request = |stopped: bool| engine::context::ContextRequest {
        uri: String::new(),
        depth: 2,
        since: None,
        page: 1,
        page_size: 10,
        max_related: 10,
        include_superseded: false,
        stop: Some(Arc::new(AtomicBool::new(stopped))),
    };
    let walked = h
        .app()
        .build_context_at(&main_project(), "hub", request(false));
    assert!(walked.is_ok(), "{walked:?}");
    match h
        .app()
        .build_context_at(&main_project(), "hub", request(true))
    {
        Err(e @ ServiceError::User(UserError::Query(QueryError::ContextStopped))) => {
            let message = e.to_string();
            assert!(message.contains("stopped"), "{message}")
        }
        other => panic!("expected a stopped walk, got {other:?}"),
    }
}
