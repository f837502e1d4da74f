//! How the recordings of a comparison were made, where they differ: the application and
//! the recorder, the level, the adapter and its driver, the timestamps the device offered,
//! the renderer's settings. A shift between recordings made differently holds that
//! difference too, not only the change under test (a verbose recording costs the
//! application time; another GPU is another machine; a browser's WebGPU may quantize
//! timestamps to 100 µs), so the comparison names each one beside its verdicts. The
//! application's own version and revision are left out: they are what usually changes on
//! purpose.

use crate::model::Meta;

/// One way the recordings differ, with its value in each recording.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContextDifference {
    /// What differs: `META`, `application` (its name), `recorder`, `level`, `adapter`,
    /// `driver`, `GPU timestamps`, `timestamps inside passes`, or `setting NAME`.
    pub what: String,
    /// Its value in each of A's recordings, in the order given: `unknown` for a recording
    /// without a readable META, `none` for a setting it does not have.
    pub a: Vec<String>,
    /// The same for B's recordings.
    pub b: Vec<String>,
}

impl ContextDifference {
    /// Its values as a phrase: `A timing; B verbose`, a value a recording.
    #[must_use]
    pub fn values(&self) -> String {
        format!("A {}; B {}", self.a.join(", "), self.b.join(", "))
    }
}

/// What is compared of each recording's META, as text: the fields (and each setting) whose
/// values are not all the same become differences.
fn facts(meta: Option<&Meta>) -> Vec<(String, String)> {
    let Some(meta) = meta else {
        return vec![("META".to_owned(), "unknown".to_owned())];
    };
    let adapter = &meta.adapter;
    let yes_no = |flag: bool| if flag { "yes" } else { "no" }.to_owned();
    let mut facts = vec![
        ("META".to_owned(), "present".to_owned()),
        ("application".to_owned(), meta.application.clone()),
        ("recorder".to_owned(), meta.recorder.clone()),
        ("level".to_owned(), meta.level.map_or("unknown", |level| level.name()).to_owned()),
        ("adapter".to_owned(), format!("{} ({}, {})", adapter.name, adapter.backend_name(), adapter.device_type)),
        ("driver".to_owned(), format!("{} {}", adapter.driver, adapter.driver_info).trim().to_owned()),
        ("GPU timestamps".to_owned(), yes_no(meta.timestamp_query)),
        ("timestamps inside passes".to_owned(), yes_no(meta.timestamp_query_inside_passes)),
    ];
    facts.extend(meta.settings.iter().map(|setting| (format!("setting {}", setting.name), setting.value.clone())));
    facts
}

/// Where recordings `a` and `b` (each side's METAs, `None` for one without) were made
/// differently, in a stable order: the fixed fields first, then settings by name.
#[must_use]
pub fn context_differences(a: &[Option<&Meta>], b: &[Option<&Meta>]) -> Vec<ContextDifference> {
    let a: Vec<Vec<(String, String)>> = a.iter().map(|meta| facts(*meta)).collect();
    let b: Vec<Vec<(String, String)>> = b.iter().map(|meta| facts(*meta)).collect();
    // Every fact's name, in the order first met: a setting only one recording has counts.
    let mut names: Vec<&str> = Vec::new();
    for (name, _) in a.iter().chain(&b).flatten() {
        if !names.contains(&name.as_str()) {
            names.push(name);
        }
    }
    let fixed = names.iter().take_while(|name| !name.starts_with("setting ")).count();
    names[fixed..].sort_unstable();
    let value_in = |recording: &[(String, String)], name: &str| {
        let found = recording.iter().find(|(fact, _)| fact == name).map(|(_, value)| value.clone());
        // Without META nothing is known of it; with one, a setting it lacks is absent.
        let has_meta = recording.iter().any(|(fact, value)| fact == "META" && value == "present");
        found.unwrap_or_else(|| if has_meta { "none" } else { "unknown" }.to_owned())
    };
    names
        .into_iter()
        .filter_map(|name| {
            let a: Vec<String> = a.iter().map(|recording| value_in(recording, name)).collect();
            let b: Vec<String> = b.iter().map(|recording| value_in(recording, name)).collect();
            let first = a.first().or(b.first())?;
            let alike = a.iter().chain(&b).all(|value| value == first);
            (!alike).then(|| ContextDifference { what: name.to_owned(), a, b })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AdapterInfo, Level, NamedText};

    fn meta(level: Level, adapter: &str, settings: &[(&str, &str)]) -> Meta {
        Meta {
            level: Some(level),
            timestamp_query: true,
            adapter: AdapterInfo {
                name: adapter.to_owned(),
                device_type: "DiscreteGpu".to_owned(),
                backend: "vulkan".to_owned(),
                driver: "mesa".to_owned(),
                driver_info: "24.2".to_owned(),
                ..AdapterInfo::default()
            },
            settings: settings
                .iter()
                .map(|(name, value)| NamedText { name: (*name).to_owned(), value: (*value).to_owned() })
                .collect(),
            application: "game".to_owned(),
            application_version: "1.0".to_owned(),
            recorder: "sgpt-recorder 0.1.0".to_owned(),
            ..Meta::default()
        }
    }

    #[test]
    fn recordings_made_alike_differ_in_nothing_not_even_in_their_application_version() {
        let a = meta(Level::Timing, "gpu", &[("resolution", "1920x1080")]);
        let mut b = a.clone();
        b.application_version = "1.1".to_owned();
        b.git_revision = "abc".to_owned();
        assert_eq!(context_differences(&[Some(&a)], &[Some(&b)]), []);
        // A new recorder is named, as another program would be.
        b.recorder = "sgpt-recorder 0.2.0".to_owned();
        b.application = "game (fork)".to_owned();
        let whats: Vec<String> = context_differences(&[Some(&a)], &[Some(&b)]).into_iter().map(|d| d.what).collect();
        assert_eq!(whats, ["application", "recorder"]);
    }

    #[test]
    fn each_difference_is_named_with_every_recordings_value() {
        let a = meta(Level::Timing, "gpu", &[("resolution", "1920x1080"), ("upscaler", "off")]);
        let a2 = meta(Level::Timing, "gpu", &[("resolution", "1920x1080"), ("upscaler", "off")]);
        let mut b = meta(Level::Verbose, "other gpu", &[("resolution", "1280x720"), ("taa", "on")]);
        b.timestamp_query_inside_passes = true;
        let found = context_differences(&[Some(&a), Some(&a2)], &[Some(&b)]);
        let named: Vec<(&str, Vec<&str>, Vec<&str>)> = found
            .iter()
            .map(|d| {
                (d.what.as_str(), d.a.iter().map(String::as_str).collect(), d.b.iter().map(String::as_str).collect())
            })
            .collect();
        assert_eq!(
            named,
            [
                ("level", vec!["timing", "timing"], vec!["verbose"]),
                ("adapter", vec!["gpu (vulkan, DiscreteGpu)"; 2], vec!["other gpu (vulkan, DiscreteGpu)"]),
                ("timestamps inside passes", vec!["no", "no"], vec!["yes"]),
                ("setting resolution", vec!["1920x1080"; 2], vec!["1280x720"]),
                ("setting taa", vec!["none"; 2], vec!["on"]),
                ("setting upscaler", vec!["off"; 2], vec!["none"]),
            ]
        );
    }

    #[test]
    fn a_recording_without_meta_differs_in_its_meta_and_nothing_is_guessed() {
        let a = meta(Level::Timing, "gpu", &[("resolution", "1920x1080")]);
        let found = context_differences(&[Some(&a)], &[None]);
        let whats: Vec<&str> = found.iter().map(|d| d.what.as_str()).collect();
        assert_eq!(
            whats,
            [
                "META",
                "application",
                "recorder",
                "level",
                "adapter",
                "driver",
                "GPU timestamps",
                "timestamps inside passes",
                "setting resolution"
            ]
        );
        assert!(found.iter().all(|d| d.b == ["unknown"]), "{found:?}");
        assert_eq!(found[3].values(), "A timing; B unknown");
        assert_eq!(context_differences(&[None], &[None]), []);
    }
}
