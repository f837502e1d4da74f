//! The page's DOM: finds the elements `index.html` provides and fills them in.
//!
//! Every string from a capture (or a file name, or a URL) reaches the DOM through
//! `set_text_content`, never as HTML: captures are untrusted input (DESIGN.md: security).
//! `tests/text_only.rs` fails if an HTML-parsing DOM API appears in this crate.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement, HtmlInputElement};

use super::error::Error;
use crate::summary::{DefectRow, Rows, Summary};

/// `data-*` attributes on `<body>` that say what is shown, for tests and tools.
const COUNTS: [&str; 5] = ["frames", "spans", "topologies", "droppedSpans", "defects"];

#[derive(Debug)]
pub struct View {
    document: Document,
    body: HtmlElement,
    input: HtmlInputElement,
    status: HtmlElement,
    error: HtmlElement,
    summary: HtmlElement,
}

impl View {
    /// Finds the elements `index.html` provides.
    pub fn find() -> Result<Self, Error> {
        let document = web_sys::window().and_then(|window| window.document()).ok_or(Error::NoGlobal("document"))?;
        let body = document.body().ok_or(Error::MissingElement("body"))?;
        let find = |id: &'static str| {
            document
                .get_element_by_id(id)
                .and_then(|element| element.dyn_into::<HtmlElement>().ok())
                .ok_or(Error::MissingElement(id))
        };
        let input =
            find("file-input")?.dyn_into::<HtmlInputElement>().map_err(|_| Error::MissingElement("file-input"))?;
        Ok(Self { status: find("status")?, error: find("error")?, summary: find("summary")?, document, body, input })
    }

    pub fn document(&self) -> &Document {
        &self.document
    }

    pub fn input(&self) -> &HtmlInputElement {
        &self.input
    }

    /// Ready for a file.
    pub fn show_idle(&self) {
        self.set_state("idle");
        self.status.set_text_content(Some("Drop a capture anywhere on this page, or pick one."));
    }

    /// Load number `load` (counting from 1) has begun: `data-load` lets a test or tool
    /// wait for the outcome of the load it started, not an earlier one.
    pub fn show_loading(&self, load: u64, name: &str) {
        self.set_data("load", &load.to_string());
        self.set_state("loading");
        self.clear_counts();
        self.error.set_hidden(true);
        self.summary.set_hidden(true);
        self.summary.set_text_content(None);
        self.status.set_text_content(Some(&format!("Opening {name}…")));
    }

    /// Shows `message`; the page stays ready for the next file.
    pub fn show_error(&self, message: &str) {
        self.set_state("error");
        self.clear_counts();
        self.summary.set_hidden(true);
        self.summary.set_text_content(None);
        self.error.set_text_content(Some(message));
        self.error.set_hidden(false);
        self.status.set_text_content(Some("Drop another capture, or pick one."));
    }

    /// Shows `summary`, with its defects marked as not yet verified.
    pub fn show_summary(&self, name: &str, summary: &Summary) -> Result<(), Error> {
        let root: &Element = &self.summary;
        root.set_text_content(None);
        self.append(root, "h2", name)?;

        let facts = self.append(root, "dl", "")?;
        for (label, value) in summary.facts() {
            self.append(&facts, "dt", label)?;
            self.append(&facts, "dd", &value)?;
        }
        if summary.verbose {
            self.append(root, "p", "Recorded at level verbose: recording bind groups and indirect counts perturbs the timings it measures.")?
                .set_class_name("warning");
        }
        self.pass_table(root, summary)?;

        self.append(root, "h3", "Defects")?;
        let defects = self.append(root, "div", "")?;
        defects.set_id("defects");
        self.defect_table(&defects, &summary.defects)?;
        self.append(&defects, "p", "Decoding every frame to find the rest…")?;

        self.set_data("frames", &summary.frames.to_string());
        self.set_data("spans", &summary.spans.to_string());
        self.set_data("topologies", &summary.topologies.to_string());
        self.set_data("droppedSpans", &summary.dropped_spans.to_string());
        self.status.set_text_content(Some("Drop or pick another capture to open it instead."));
        self.error.set_hidden(true);
        self.summary.set_hidden(false);
        self.set_state("ready");
        Ok(())
    }

    /// Replaces the defects found by opening with every defect found by decoding every frame.
    pub fn show_verified_defects(&self, defects: &Rows<DefectRow>) -> Result<(), Error> {
        let section = self.document.get_element_by_id("defects").ok_or(Error::MissingElement("defects"))?;
        section.set_text_content(None);
        self.defect_table(&section, defects)?;
        self.set_data("defects", &defects.total().to_string());
        self.set_data("verified", "true");
        Ok(())
    }

    /// Marks the page as a drop target while a file is dragged over it.
    pub fn set_dragging(&self, dragging: bool) {
        if dragging {
            self.set_data("dragging", "true");
        } else {
            self.body.dataset().delete("dragging");
        }
    }

    fn pass_table(&self, root: &Element, summary: &Summary) -> Result<(), Error> {
        let passes = &summary.passes;
        let Some(heading) = summary.pass_heading() else {
            self.append(root, "h3", "Passes")?;
            self.append(root, "p", "The capture holds no topology.")?;
            return Ok(());
        };
        self.append(root, "h3", &heading)?;
        let table = self.append(root, "table", "")?;
        table.set_class_name("passes");
        let head = self.append(&table, "tr", "")?;
        self.append(&head, "th", "Graph pass")?;
        self.append(&head, "th", "GPU passes")?;
        for row in &passes.rows {
            let tr = self.append(&table, "tr", "")?;
            match &row.graph_pass {
                Some(name) => self.append(&tr, "td", name)?,
                None => {
                    let cell = self.append(&tr, "td", "outside any graph pass")?;
                    cell.set_class_name("unnamed");
                    cell
                }
            };
            let labels = self.append(&tr, "td", "")?;
            let list = self.append(&labels, "ul", "")?;
            for label in &row.gpu_passes {
                // An empty label is legal; show that it is empty rather than an empty line.
                let item = self.append(&list, "li", if label.is_empty() { "(no label)" } else { label })?;
                if label.is_empty() {
                    item.set_class_name("unnamed");
                }
            }
        }
        if let Some(note) = passes.omitted_note() {
            self.append(root, "p", &note)?;
        }
        Ok(())
    }

    fn defect_table(&self, parent: &Element, defects: &Rows<DefectRow>) -> Result<(), Error> {
        if defects.shown.is_empty() {
            self.append(parent, "p", "None found.")?;
            return Ok(());
        }
        let table = self.append(parent, "table", "")?;
        table.set_class_name("defects");
        let head = self.append(&table, "tr", "")?;
        for title in ["Kind", "Offset", "Detail"] {
            self.append(&head, "th", title)?;
        }
        for defect in &defects.shown {
            let tr = self.append(&table, "tr", "")?;
            self.append(&tr, "td", defect.kind)?;
            self.append(&tr, "td", &defect.offset_hex())?;
            self.append(&tr, "td", &defect.detail)?;
        }
        if defects.omitted > 0 {
            let note = format!("Not shown: {} more defects.", defects.omitted);
            self.append(parent, "p", &note)?;
        }
        Ok(())
    }

    /// Appends a `tag` element holding `text` as text.
    fn append(&self, parent: &Element, tag: &str, text: &str) -> Result<Element, Error> {
        let element = self.document.create_element(tag)?;
        if !text.is_empty() {
            element.set_text_content(Some(text));
        }
        parent.append_child(&element)?;
        Ok(element)
    }

    fn set_state(&self, state: &str) {
        self.set_data("state", state);
    }

    /// Sets `data-{key}` on `<body>`; `key` is one of this module's fixed camelCase names.
    fn set_data(&self, key: &str, value: &str) {
        // Only a key that is not a valid name can make this throw.
        let _ = self.body.dataset().set(key, value);
    }

    fn clear_counts(&self) {
        let dataset = self.body.dataset();
        for key in COUNTS {
            dataset.delete(key);
        }
        dataset.delete("verified");
    }
}
