//! The capture-wide search over a capture written by the real writer: several topologies
//! that share and differ in names, deduplicated; the ranking; highlight ranges; hostile
//! names; and the statistics filter's rule being the same.

use sgpt_format::{Capture, Frame, GpuPass, GpuPassKind, GraphPass, Level, Meta, ResourceNode, Topology, Writer};
use sgpt_inspector::search::{ItemKind, MatchTier, Place, SearchHit, SearchIndex, match_text, matches};
use sgpt_inspector::stats_table::TableState;
use sgpt_inspector::summary::MAX_TEXT_CHARS;

const HOSTILE: &str = "<img src=x onerror=alert(1)>";

fn graph(names: &[&str]) -> Vec<GraphPass> {
    names.iter().map(|&name| GraphPass { name: name.into(), ..GraphPass::default() }).collect()
}

fn gpu(label: &str, graph_pass: Option<u32>, kind: GpuPassKind) -> GpuPass {
    GpuPass { label: label.into(), graph_pass, kind, ..GpuPass::default() }
}

fn node(name: &str, version: u32) -> ResourceNode {
    ResourceNode { name: name.into(), version, ..ResourceNode::default() }
}

fn long_graph_name() -> String {
    "g".repeat(1_000) + "tail"
}

/// Three topologies: 0 (5 frames) and 1 (3 frames) share shadow passes and resources and
/// differ in the blur's graph pass; 2 (1 frame) holds hostile and non-ASCII names.
fn topologies() -> [Topology; 3] {
    use GpuPassKind::{Compute, Encoder, Marker, Render};
    let first = Topology {
        graph_passes: graph(&["shadow", "bloom", "post"]),
        gpu_passes: vec![
            gpu("cascade 0", Some(0), Render),
            gpu("cascade 1", Some(0), Render),
            gpu("blur", Some(1), Compute),
            gpu("blur", Some(1), Compute),
            gpu("post", Some(2), Render),
            gpu("blit", None, Encoder),
        ],
        // Listed newest version first: an item's place is the lowest version.
        resources: vec![node("shadow_map", 1), node("shadow_map", 0), node("bloom.chain", 0)],
        ..Topology::default()
    };
    let second = Topology {
        graph_passes: graph(&["shadow", "dof", "post"]),
        gpu_passes: vec![
            gpu("cascade 0", Some(0), Render),
            gpu("blur", Some(1), Compute),
            GpuPass { parent: Some(1), ..gpu("blur", Some(1), Marker) },
            gpu("post", Some(2), Render),
        ],
        // Worst match first, so that the order found is the ranking's.
        resources: vec![
            node("d_e_p_t_h", 0),
            node("lineardepth", 0),
            node("scene/depth", 0),
            node("depth_pyramid", 0),
            node("depth", 0),
            node("shadow_map", 0),
            node("ÄRGER_Buffer", 0),
        ],
        ..Topology::default()
    };
    let third = Topology {
        graph_passes: graph(&[&long_graph_name(), HOSTILE]),
        gpu_passes: vec![gpu("İstanbul", Some(0), Render), gpu("", None, Encoder)],
        resources: vec![node("Straße", 0), node(HOSTILE, 0)],
        ..Topology::default()
    };
    [first, second, third]
}

fn capture_bytes() -> Vec<u8> {
    let mut writer = Writer::new(Vec::new(), &Meta { level: Some(Level::Structure), ..Meta::default() }).expect("meta");
    let ids: Vec<u32> = topologies().iter().map(|t| writer.topology(t).expect("topology")).collect();
    assert_eq!(ids, [0, 1, 2]);
    // Frames interleave the topologies: 5 of 0, 3 of 1, 1 of 2.
    for (frame_number, topology) in [0, 1, 0, 1, 0, 2, 0, 1, 0].into_iter().enumerate() {
        writer.frame(&Frame { frame_number: frame_number as u64, topology, ..Frame::default() }).expect("frame");
    }
    writer.finish().expect("finish")
}

fn index() -> SearchIndex {
    let bytes = capture_bytes();
    let capture = Capture::open(&bytes).expect("opens");
    SearchIndex::new(&capture)
}

/// `(kind, name)` of each hit, in order.
fn names(index: &SearchIndex, hits: &[SearchHit]) -> Vec<(ItemKind, String)> {
    hits.iter().map(|hit| (index.items()[hit.item].kind, index.items()[hit.item].name.clone())).collect()
}

fn find<'a>(
    index: &'a SearchIndex,
    kind: ItemKind,
    name: &str,
    pass_kind: Option<GpuPassKind>,
) -> &'a sgpt_inspector::search::SearchItem {
    let mut found = index.items().iter().filter(|i| i.kind == kind && i.name == name && i.pass_kind == pass_kind);
    let item = found.next().unwrap_or_else(|| panic!("{kind:?} {name} {pass_kind:?} is indexed"));
    assert!(found.next().is_none(), "{kind:?} {name} {pass_kind:?} is indexed once");
    item
}

fn place(topology: u32, index: u32) -> Place {
    Place { topology, index }
}

#[test]
fn items_are_distinct_across_topologies_with_their_places_and_frames() {
    let index = index();
    let pass = |name, kind| find(&index, ItemKind::Pass, name, Some(kind));
    let cascade = pass("shadow › cascade 0", GpuPassKind::Render);
    assert_eq!(cascade.places, [place(0, 0), place(1, 0)]);
    assert_eq!(cascade.frames, 8);
    assert_eq!(cascade.index_in(1), Some(0));
    assert_eq!(cascade.index_in(2), None);
    assert_eq!(pass("shadow › cascade 1", GpuPassKind::Render).frames, 5);
    // The same label under another graph pass, or of another kind, is another pass.
    let bloom_blur = pass("bloom › blur", GpuPassKind::Compute);
    assert_eq!(bloom_blur.places, [place(0, 2)], "the first of two equal passes in one topology");
    assert_eq!(pass("dof › blur", GpuPassKind::Compute).places, [place(1, 1)]);
    assert_eq!(pass("dof › blur", GpuPassKind::Marker).places, [place(1, 2)]);
    // A label equal to its graph pass's name is said once; a pass outside the graph alone.
    assert_eq!(pass("post", GpuPassKind::Render).places, [place(0, 4), place(1, 3)]);
    assert_eq!(pass("blit", GpuPassKind::Encoder).frames, 5);
    assert_eq!(pass("(no label)", GpuPassKind::Encoder).places, [place(2, 1)]);

    let shadow = find(&index, ItemKind::GraphPass, "shadow", None);
    assert_eq!((shadow.places.as_slice(), shadow.frames), (&[place(0, 0), place(1, 0)][..], 8));
    assert_eq!(find(&index, ItemKind::GraphPass, "dof", None).places, [place(1, 1)]);
    let shadow_map = find(&index, ItemKind::Resource, "shadow_map", None);
    assert_eq!(shadow_map.places, [place(0, 1), place(1, 5)], "a resource's place is its lowest version");
    assert_eq!(shadow_map.frames, 8);

    let count = |kind| index.items().iter().filter(|i| i.kind == kind).count();
    assert_eq!(count(ItemKind::Pass), 9);
    assert_eq!(count(ItemKind::GraphPass), 6);
    assert_eq!(count(ItemKind::Resource), 10);
}

#[test]
fn ranking_is_tier_then_kind_then_frames_then_name() {
    let index = index();
    let hits = index.query("depth", 10);
    let tiers: Vec<MatchTier> = hits.iter().map(|h| h.tier).collect();
    assert_eq!(
        names(&index, &hits).into_iter().map(|(_, name)| name).collect::<Vec<_>>(),
        ["depth", "depth_pyramid", "scene/depth", "lineardepth", "d_e_p_t_h"]
    );
    use MatchTier::{Exact, Prefix, Subsequence, Substring, WordStart};
    assert_eq!(tiers, [Exact, Prefix, WordStart, Substring, Subsequence]);

    // The graph pass is exact; the passes inside it and the resource begin with it: passes
    // first, the one in more frames first.
    let hits = index.query("SHADOW", 10);
    assert_eq!(
        names(&index, &hits),
        [
            (ItemKind::GraphPass, "shadow".to_owned()),
            (ItemKind::Pass, "shadow › cascade 0".to_owned()),
            (ItemKind::Pass, "shadow › cascade 1".to_owned()),
            (ItemKind::Resource, "shadow_map".to_owned()),
        ]
    );
    assert_eq!(hits[0].tier, Exact);
    assert!(hits[1..].iter().all(|h| h.tier == Prefix));

    // A pass is known by its label alone: `blur` is exact for each blur, the graph pass's
    // in more frames first, then by name; the same name of another kind follows by order.
    let hits = index.query("blur", 10);
    assert_eq!(
        names(&index, &hits).into_iter().map(|(_, name)| name).collect::<Vec<_>>(),
        ["bloom › blur", "dof › blur", "dof › blur"]
    );
    assert!(hits.iter().all(|h| h.tier == Exact));
    assert_eq!(index.items()[hits[1].item].pass_kind, Some(GpuPassKind::Compute));
}

#[test]
fn limits_and_empty_queries() {
    let index = index();
    assert!(index.query("", 10).is_empty(), "an empty query returns nothing");
    assert!(index.query("   ", 10).is_empty());
    assert!(index.query("shadow", 0).is_empty());
    assert!(index.query("zzzz", 10).is_empty());
    let all = index.query("a", usize::MAX);
    assert!(all.len() > 3);
    for limit in 1..all.len() {
        assert_eq!(index.query("a", limit), all[..limit], "the best {limit}");
    }
}

#[test]
fn ranges_are_byte_ranges_of_the_name_shown() {
    let index = index();
    let text = |hit: &SearchHit| {
        let name = &index.items()[hit.item].name;
        hit.ranges.iter().map(|r| &name[r.clone()]).collect::<Vec<_>>()
    };
    let hits = index.query("cascade", 1);
    assert_eq!(hits[0].tier, MatchTier::Prefix, "of the label");
    assert_eq!(hits[0].ranges.first(), Some(&(11..18)), "`›` is three bytes");
    assert_eq!(hits[0].ranges.len(), 1);
    assert_eq!(text(&hits[0]), ["cascade"]);
    let hits = index.query("shcas", 1);
    assert_eq!(hits[0].tier, MatchTier::Subsequence);
    assert_eq!(text(&hits[0]), ["sh", "cas"]);
    let hits = index.query("blur", 1);
    assert_eq!(text(&hits[0]), ["blur"], "an exact label highlights the label");
    // Ranges are ascending and disjoint for every hit.
    for query in ["a", "sh", "ow", "dpt", "e_", "›"] {
        for hit in index.query(query, usize::MAX) {
            let name = &index.items()[hit.item].name;
            assert!(!hit.ranges.is_empty());
            assert!(hit.ranges.windows(2).all(|w| w[0].end < w[1].start), "{query}: {name} {:?}", hit.ranges);
            assert!(hit.ranges.iter().all(|r| r.start < r.end && name.is_char_boundary(r.start)));
        }
    }
}

#[test]
fn case_folds_per_character_beyond_ascii() {
    let index = index();
    let hits = index.query("istanbul", 1);
    assert_eq!(hits[0].tier, MatchTier::Exact, "İ folds to i, as the pass's label");
    let name = &index.items()[hits[0].item].name;
    assert_eq!(&name[hits[0].ranges[0].clone()], "İstanbul");
    let hits = index.query("ärger", 1);
    assert_eq!(
        (hits[0].tier, &index.items()[hits[0].item].name[hits[0].ranges[0].clone()]),
        (MatchTier::Prefix, "ÄRGER")
    );
    assert_eq!(index.query("BUFFER", 1)[0].tier, MatchTier::WordStart);
    assert_eq!(index.query("STRASSE", 1), [], "no whole-string folding of ß");
    assert_eq!(index.query("STRAẞE", 1)[0].tier, MatchTier::Exact, "ẞ folds to ß");
}

#[test]
fn hostile_names_stay_text_and_long_ones_are_clipped() {
    let index = index();
    let hits = index.query("onerror", 10);
    let found = names(&index, &hits);
    assert_eq!(found, [(ItemKind::GraphPass, HOSTILE.to_owned()), (ItemKind::Resource, HOSTILE.to_owned())]);
    assert!(hits.iter().all(|h| h.tier == MatchTier::WordStart));
    assert_eq!(index.query(HOSTILE, 10).len(), 2, "markup is matched as the text it is");

    let long = find(&index, ItemKind::GraphPass, &format!("{}…", "g".repeat(MAX_TEXT_CHARS)), None);
    assert_eq!(long.places, [place(2, 0)]);
    assert!(index.query("tail", 10).is_empty(), "what the page does not show is not matched");
    let pass = index.query("istanbul", 1);
    let name = &index.items()[pass[0].item].name;
    assert_eq!(name.chars().count(), MAX_TEXT_CHARS + 1 + " › İstanbul".chars().count());
    assert!(name.ends_with("… › İstanbul"));
}

#[test]
fn the_statistics_filter_is_the_same_search() {
    let index = index();
    for query in ["a", "sh", "blur", "dpt", "ärger", "g › i", "onerror", "zzz", "bloom blur"] {
        let hits: Vec<usize> = index.query(query, usize::MAX).into_iter().map(|h| h.item).collect();
        for (at, item) in index.items().iter().enumerate() {
            assert_eq!(matches(&item.name, query), hits.contains(&at), "{query:?} on {:?}", item.name);
            assert_eq!(match_text(&item.name, query).is_some(), matches(&item.name, query));
        }
    }
    assert!(matches("anything", ""), "an empty filter shows every row");

    let bytes = sgpt_format::synth::generate(&sgpt_format::synth::SynthOptions {
        frames: 20,
        passes: 12,
        seed: 4,
        ..sgpt_format::synth::SynthOptions::default()
    });
    let capture = Capture::open(&bytes).expect("synth opens");
    let report = sgpt_format::analysis::pass_stats(&capture, 0..capture.frames().len());
    assert!(!report.passes.is_empty());
    let all = TableState::default().rows(&report);
    let mut filtered = Vec::new();
    for query in ["a", "PASS", "s1", "zzz"] {
        let state = TableState { filter: query.into(), ..TableState::default() };
        let expected: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&row| matches(&sgpt_inspector::stats_table::display_name(&report.passes[row]), query))
            .collect();
        assert_eq!(state.rows(&report), expected, "{query}");
        filtered.push(expected.len());
    }
    assert!(
        filtered.iter().any(|&n| n > 0 && n < all.len()),
        "some filter keeps some rows: {filtered:?} of {}",
        all.len()
    );
}

#[test]
fn thousands_of_names_are_indexed_and_queried() {
    let topology = Topology {
        graph_passes: (0..2_000).map(|i| GraphPass { name: format!("pass_{i:04}"), ..GraphPass::default() }).collect(),
        resources: (0..3_000).map(|i| node(&format!("res/{i:04}.tex"), 0)).collect(),
        ..Topology::default()
    };
    let frames = std::collections::HashMap::from([(7, 2)]);
    let index = SearchIndex::from_topologies([(7, &topology)], &frames);
    assert_eq!(index.items().len(), 5_000);
    let hits = index.query("0042", 5);
    assert_eq!(
        names(&index, &hits),
        [(ItemKind::GraphPass, "pass_0042".to_owned()), (ItemKind::Resource, "res/0042.tex".to_owned())]
    );
    assert!(hits.iter().all(|h| h.tier == MatchTier::WordStart));
    assert_eq!(index.items()[hits[0].item].frames, 2);
    assert_eq!(index.query("p", usize::MAX).len(), 2_000, "every pass_…, no res/…");
}
