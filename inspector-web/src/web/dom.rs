//! Small DOM helpers. Every string goes in as text (`set_text_content`), never as HTML:
//! captures are untrusted (docs/ARCHITECTURE.md, "The inspector"), and `tests/text_only.rs` enforces it.

use wasm_bindgen::JsCast;
use web_sys::{Document, Element, HtmlElement};

use super::error::Error;

#[derive(Clone, Debug)]
pub struct Dom {
    pub document: Document,
}

impl Dom {
    pub fn new() -> Result<Self, Error> {
        let document = web_sys::window().and_then(|w| w.document()).ok_or(Error::NoGlobal("document"))?;
        Ok(Self { document })
    }

    pub fn find(&self, id: &'static str) -> Result<HtmlElement, Error> {
        self.document
            .get_element_by_id(id)
            .and_then(|e| e.dyn_into::<HtmlElement>().ok())
            .ok_or(Error::MissingElement(id))
    }

    /// Appends a `tag` element holding `text` as text.
    pub fn add(&self, parent: &Element, tag: &str, text: &str) -> Result<Element, Error> {
        let element = self.document.create_element(tag)?;
        if !text.is_empty() {
            element.set_text_content(Some(text));
        }
        parent.append_child(&element)?;
        Ok(element)
    }

    /// As [`Dom::add`], with a class.
    pub fn add_class(&self, parent: &Element, tag: &str, class: &str, text: &str) -> Result<Element, Error> {
        let element = self.add(parent, tag, text)?;
        element.set_class_name(class);
        Ok(element)
    }

    /// A table with a header row; returns the table.
    pub fn table(&self, parent: &Element, headers: &[(&str, bool)]) -> Result<Element, Error> {
        let table = self.add(parent, "table", "")?;
        let head = self.add(&self.add(&table, "thead", "")?, "tr", "")?;
        for (title, numeric) in headers {
            let cell = self.add(&head, "th", title)?;
            if *numeric {
                cell.set_class_name("num");
            }
        }
        self.add(&table, "tbody", "")?;
        Ok(table)
    }

    /// Appends a row of cells to `table`'s body; numeric cells are right-aligned.
    pub fn row(&self, table: &Element, cells: &[(&str, bool)]) -> Result<Element, Error> {
        let body = table.query_selector("tbody")?.ok_or(Error::MissingElement("tbody"))?;
        let tr = self.add(&body, "tr", "")?;
        for (text, numeric) in cells {
            let td = self.add(&tr, "td", text)?;
            if *numeric {
                td.set_class_name("num");
            }
        }
        Ok(tr)
    }

    /// Sets `element`'s text to `text` with a line-break opportunity (`<wbr>`) after each
    /// `/`: a pass's path (`shadows/cascade 0`) then wraps between its parts in a narrow
    /// column, rather than inside a word. What is copied or searched is `text` unchanged.
    pub fn text_breaking_after_slashes(&self, element: &Element, text: &str) -> Result<(), Error> {
        clear(element);
        for (index, part) in text.split_inclusive('/').enumerate() {
            if index > 0 {
                let wbr = self.document.create_element("wbr")?;
                element.append_with_node_1(&wbr)?;
            }
            // A string appended to an element is a text node, never parsed as HTML.
            element.append_with_str_1(part)?;
        }
        Ok(())
    }

    /// Makes `element` act on click or Enter through the delegated handler.
    pub fn action(element: &Element, action: &str, value: &str) {
        let _ = element.set_attribute("data-action", action);
        let _ = element.set_attribute("data-value", value);
        let _ = element.set_attribute("tabindex", "0");
    }
}

pub fn clear(element: &Element) {
    element.set_text_content(None);
}
