//! export_graph's three formats of a whole graph: the graph tools' JSON, a Mermaid flowchart
//! and a Graphviz DOT digraph. Node ids are `n0`, `n1`, ... (entities in order, then the
//! targets of relations that are no entity), so no name has to be a valid id; names and
//! relation types are escaped inside quoted labels.

use serde_json::json;

use super::graph::{GraphAnswer, GraphShape};
use engine::graph::KnowledgeGraph;

/// The formats export_graph writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExportFormat {
    Json,
    Mermaid,
    Dot,
}

impl ExportFormat {
    fn name(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Mermaid => "mermaid",
            ExportFormat::Dot => "dot",
        }
    }
}

/// export_graph: the graph written in `format` as the text; the structured content holds the
/// format and the same text.
pub fn export(graph: &KnowledgeGraph, format: ExportFormat) -> GraphAnswer {
    let text = match format {
        ExportFormat::Json => {
            serde_json::to_string_pretty(&GraphShape::from(graph)).unwrap_or_default()
        }
        ExportFormat::Mermaid => diagram(graph, &MERMAID),
        ExportFormat::Dot => diagram(graph, &DOT),
    };
    GraphAnswer {
        content: json!({"format": format.name(), "export": text}),
        text,
    }
}

/// How one diagram language writes a graph.
struct Syntax {
    open: &'static str,
    close: &'static str,
    node: fn(&str, &str) -> String,
    edge: fn(&str, &str, &str) -> String,
}

const MERMAID: Syntax = Syntax {
    open: "graph LR\n",
    close: "",
    node: |id, name| format!("    {id}[\"{}\"]\n", mermaid_text(name)),
    edge: |from, to, kind| format!("    {from} -->|\"{}\"| {to}\n", mermaid_text(kind)),
};

const DOT: Syntax = Syntax {
    open: "digraph knowledge_graph {\n",
    close: "}\n",
    node: |id, name| format!("    {id} [label=\"{}\"];\n", dot_text(name)),
    edge: |from, to, kind| format!("    {from} -> {to} [label=\"{}\"];\n", dot_text(kind)),
};

fn diagram(graph: &KnowledgeGraph, syntax: &Syntax) -> String {
    let mut names: Vec<&str> = graph.entities.iter().map(|e| e.name.as_str()).collect();
    for r in &graph.relations {
        for end in [r.from.as_str(), r.to.as_str()] {
            if !names.contains(&end) {
                names.push(end);
            }
        }
    }
    let id = |name: &str| format!("n{}", names.iter().position(|n| *n == name).unwrap_or(0));
    let mut out = String::from(syntax.open);
    for name in &names {
        out.push_str(&(syntax.node)(&id(name), name));
    }
    for r in &graph.relations {
        out.push_str(&(syntax.edge)(&id(&r.from), &id(&r.to), &r.relation_type));
    }
    out.push_str(syntax.close);
    out
}

/// Text inside a quoted Mermaid label: `#` first (it starts Mermaid's entity codes), then the
/// characters that would end the label or read as markup.
fn mermaid_text(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    one_line
        .replace('#', "#35;")
        .replace('"', "#quot;")
        .replace('|', "#124;")
        .replace('<', "#lt;")
        .replace('>', "#gt;")
}

/// Text inside a quoted DOT string.
fn dot_text(text: &str) -> String {
    text.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_escaped_for_each_language() {
        let cases = [
            (
                r#"say "hi" | <b> #1"#,
                "say #quot;hi#quot; #124; #lt;b#gt; #35;1",
                r#"say \"hi\" | <b> #1"#,
            ),
            ("a\\b\nc", "a\\b c", "a\\\\b\\nc"),
        ];
        for (text, mermaid, dot) in cases {
            assert_eq!(mermaid_text(text), mermaid, "{text}");
            assert_eq!(dot_text(text), dot, "{text}");
        }
    }
}
