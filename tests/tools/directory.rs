//! list_directory: depth, globs, sorting and paging over a project's folders and files.

use std::fs;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::Harness;

#[test]
fn list_directory_honours_depth_glob_sort_and_paging() {
    let h = Harness::new();
    // Apple changed a minute before Banana: saved by another program with those times.
    fs::create_dir_all(h.main_dir()).unwrap();
    for (name, age) in [("Apple", 60), ("Banana", 0)] {
        let path = h.main_dir().join(format!("{name}.md"));
        fs::write(&path, format!("# {name}\n")).unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
    }
    h.sync();
    h.write("Cherry", "fruit", "c");
    h.write("Deep", "fruit/deep", "d");
    h.text(
        "canvas",
        json!({"nodes": [], "edges": [], "title": "board", "directory": "/"}),
    );

    let names = |v: &Value| -> Vec<String> {
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect()
    };
    // (arguments, names listed in order)
    #[rustfmt::skip]
    let rows: Vec<(Value, &[&str])> = vec![
        (json!({}), &["fruit", "Apple.md", "Banana.md", "board.canvas"]),
        (json!({"depth": 2}), &["fruit", "deep", "Apple.md", "Banana.md", "board.canvas", "Cherry.md"]),
        (json!({"dir_name": "fruit", "depth": 2}), &["deep", "Cherry.md", "Deep.md"]),
        (json!({"file_name_glob": "*.md"}), &["Apple.md", "Banana.md"]),
        (json!({"file_name_glob": "*.md", "depth": 3}), &["Apple.md", "Banana.md", "Cherry.md", "Deep.md"]),
        (json!({"file_name_glob": "*.md", "sort": "title_desc"}), &["Banana.md", "Apple.md"]),
        (json!({"file_name_glob": "*.md", "sort": "title_asc"}), &["Apple.md", "Banana.md"]),
        (json!({"file_name_glob": "*.md", "sort": "updated_desc"}), &["Banana.md", "Apple.md"]),
        (json!({"file_name_glob": "*.md", "sort": "updated_asc"}), &["Apple.md", "Banana.md"]),
    ];
    for (args, expected) in rows {
        let v = h.json("list_directory", args.clone());
        let mut got = names(&v);
        let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        if args.get("sort").is_none() && args.get("depth").is_some() {
            // Order across levels is not specified beyond directories first.
            got.sort();
            want.sort();
        }
        assert_eq!(got, want, "{args}: {v}");
    }

    let page1 = h.json("list_directory", json!({"depth": 3, "page_size": 3}));
    assert_eq!(names(&page1).len(), 3);
    assert_eq!(
        (page1["total"].clone(), page1["has_more"].clone()),
        (json!(7), json!(true)),
        "{page1}"
    );
    let page3 = h.json(
        "list_directory",
        json!({"depth": 3, "page_size": 3, "page": 3}),
    );
    assert_eq!(names(&page3), ["Deep.md"], "{page3}");
    assert_eq!(page3["has_more"], false);
    let text = h.text(
        "list_directory",
        json!({"depth": 3, "page_size": 3, "file_name_glob": "*.md"}),
    );
    assert!(
        text.starts_with("Files in '/' matching '*.md' (depth 3):"),
        "{text}"
    );
    assert!(
        text.ends_with("\n\nMore results available. Call list_directory(dir_name='/', depth=3, page=2, page_size=3, file_name_glob='*.md') to continue."),
        "{text}"
    );
    let last = h.text(
        "list_directory",
        json!({"depth": 3, "page_size": 3, "page": 2, "file_name_glob": "*.md"}),
    );
    assert!(!last.contains("More results available"), "{last}");
    let empty = h.text("list_directory", json!({"dir_name": "nothing"}));
    assert!(empty.starts_with("No files found in directory"), "{empty}");
}
