//! The page's query: `?record=N&level=L&scale=S&lose-device=F&timing=T&memory=0`.

use sgpt_recorder::Level;
use sgpt_recorder::timing::TimingLevel;

/// The most frames `?record=` or the panel accepts: about half an hour at 60 fps.
pub(crate) const MAX_FRAMES: u64 = 100_000;

/// What the page was asked for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PageQuery {
    /// Record this many frames as soon as the scene runs.
    pub(crate) record: Option<u64>,
    pub(crate) level: Level,
    /// The scene's scale (`SceneOptions::scale`); 1 suits software renderers.
    pub(crate) scale: f32,
    /// Destroys the device after this many frames: what a driver reset or a GPU process
    /// crash does, on demand, to see what a cut capture keeps.
    pub(crate) lose_device: Option<u64>,
    /// `?timing=off|trace|full`: the timing port's level, over the stored preference.
    pub(crate) timing: Option<TimingLevel>,
    /// `?memory=0|1`: record the demo's memory profile (on unless `0`).
    pub(crate) memory: bool,
}

impl PageQuery {
    /// Parses `location.search`. A bad value is an error the page shows, not a default:
    /// a shared link that records something else than it says would mislead.
    pub(crate) fn parse(search: &str) -> Result<Self, String> {
        let params =
            web_sys::UrlSearchParams::new_with_str(search).map_err(|_| format!("unreadable query {search:?}"))?;
        let record = params.get("record").map(|value| frames(&value, "record")).transpose()?;
        let level = match params.get("level") {
            Some(name) => level(&name)?,
            None => Level::Workload,
        };
        let scale = match params.get("scale") {
            Some(value) => value
                .parse::<f32>()
                .ok()
                .filter(|scale| scale.is_finite() && *scale > 0.0)
                .ok_or_else(|| format!("?scale={value:?} is not a positive number"))?,
            None => 1.0,
        };
        let lose_device = params.get("lose-device").map(|value| frames(&value, "lose-device")).transpose()?;
        let timing = match params.get("timing") {
            Some(name) => Some(
                TimingLevel::from_name(&name).ok_or_else(|| format!("timing={name:?}: expected off, trace or full"))?,
            ),
            None => None,
        };
        let memory = match params.get("memory").as_deref() {
            None | Some("1") => true,
            Some("0") => false,
            Some(value) => return Err(format!("memory={value:?}: expected 0 or 1")),
        };
        Ok(Self { record, level, scale, lose_device, timing, memory })
    }
}

/// A frame count between 1 and [`MAX_FRAMES`].
pub(crate) fn frames(value: &str, what: &str) -> Result<u64, String> {
    value
        .trim()
        .parse::<u64>()
        .ok()
        .filter(|frames| (1..=MAX_FRAMES).contains(frames))
        .ok_or_else(|| format!("{what}={value:?}: expected a frame count from 1 to {MAX_FRAMES}"))
}

pub(crate) fn level(name: &str) -> Result<Level, String> {
    Level::from_name(name).ok_or_else(|| format!("level={name:?}: expected timing, structure, workload or verbose"))
}
