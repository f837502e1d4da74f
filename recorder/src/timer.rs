//! The timer pool: query sets cycled N-deep against frames in flight.
//!
//! Every GPU object here is created once, at `start()`: nothing is created or destroyed
//! per frame, and each frame maps one readback buffer, whatever number of passes and
//! command encoders it used. A frame that needs more slots than its set holds has the
//! rest refused and counted; a frame that finds every set in flight gets none.

use std::ops::Range;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::Waker;

use crate::stale::StaleGuard;

/// Bytes of one resolved timestamp.
pub(crate) const QUERY_BYTES: u64 = wgpu::QUERY_SIZE as u64;
/// Bytes read back per resolved indirect call: the largest argument block (indexed draw).
pub(crate) const INDIRECT_SLOT_BYTES: u64 = 20;

const IDLE: u8 = 0;
const MAPPING: u8 = 1;
const MAPPED: u8 = 2;
const FAILED: u8 = 3;

/// Wakes a stop future when a readback lands (on the web, where nothing else drives it).
#[derive(Debug, Default)]
pub(crate) struct WakeSlot(Mutex<Option<Waker>>);

impl WakeSlot {
    pub(crate) fn set(&self, waker: &Waker) {
        let mut slot = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if !slot.as_ref().is_some_and(|current| current.will_wake(waker)) {
            *slot = Some(waker.clone());
        }
    }

    fn wake(&self) {
        if let Some(waker) = self.0.lock().unwrap_or_else(PoisonError::into_inner).take() {
            waker.wake();
        }
    }
}

/// What resolving into a timer set needs, held by the shared recorder front.
#[derive(Debug)]
pub(crate) struct SetHandles {
    pub(crate) query_set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    readback: wgpu::Buffer,
}

impl SetHandles {
    pub(crate) fn resolve(&self, encoder: &mut wgpu::CommandEncoder, queries: Range<u32>) {
        resolve_range(self.query_set.as_ref(), self.resolve.as_ref(), &self.readback, encoder, queries);
    }
}

/// Resolves the timestamps `queries` and copies them to the same place in `readback`.
fn resolve_range(
    query_set: Option<&wgpu::QuerySet>,
    resolve: Option<&wgpu::Buffer>,
    readback: &wgpu::Buffer,
    encoder: &mut wgpu::CommandEncoder,
    queries: Range<u32>,
) {
    if let (Some(query_set), Some(resolve)) = (query_set, resolve)
        && !queries.is_empty()
    {
        let at = u64::from(queries.start) * QUERY_BYTES;
        let len = u64::from(queries.len() as u32) * QUERY_BYTES;
        encoder.resolve_query_set(query_set, queries, resolve, 0);
        encoder.copy_buffer_to_buffer(resolve, 0, readback, at, len);
    }
}

/// The state of one set's readback, shared with its map callback.
#[derive(Debug)]
struct MapState {
    state: AtomicU8,
    wake: Arc<WakeSlot>,
}

/// One frame's worth of GPU objects.
#[derive(Debug)]
pub(crate) struct TimerSet {
    pub(crate) id: u8,
    /// `None` without `TIMESTAMP_QUERY` (the set then only reads back indirect arguments).
    pub(crate) query_set: Option<wgpu::QuerySet>,
    resolve: Option<wgpu::Buffer>,
    readback: wgpu::Buffer,
    /// Where indirect arguments start in `readback`.
    pub(crate) indirect_base: u64,
    map: Arc<MapState>,
    /// Bytes of `readback` the current frame maps.
    mapped_len: u64,
    /// What the set's slots held when last read, to refuse values of another frame.
    pub(crate) guard: StaleGuard,
}

impl TimerSet {
    fn new(device: &wgpu::Device, id: u8, queries: u32, indirect_slots: u32, wake: &Arc<WakeSlot>) -> Self {
        let query_bytes = u64::from(queries) * QUERY_BYTES;
        let query_set = (queries > 0).then(|| {
            device.create_query_set(&wgpu::QuerySetDescriptor {
                label: Some("sgpt timer pool"),
                ty: wgpu::QueryType::Timestamp,
                count: queries,
            })
        });
        let resolve = (queries > 0).then(|| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("sgpt timer resolve"),
                size: query_bytes,
                usage: wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
                mapped_at_creation: false,
            })
        });
        let indirect_bytes = u64::from(indirect_slots) * INDIRECT_SLOT_BYTES;
        let readback = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("sgpt timer readback"),
            size: (query_bytes + indirect_bytes).max(wgpu::COPY_BUFFER_ALIGNMENT),
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            id,
            query_set,
            resolve,
            readback,
            indirect_base: query_bytes,
            map: Arc::new(MapState { state: AtomicU8::new(IDLE), wake: Arc::clone(wake) }),
            mapped_len: 0,
            guard: StaleGuard::default(),
        }
    }

    /// Handles to this set's query set and buffers, for the shared [`crate::Recorder`]
    /// (wgpu handles are reference-counted).
    pub(crate) fn handles(&self) -> SetHandles {
        SetHandles { query_set: self.query_set.clone(), resolve: self.resolve.clone(), readback: self.readback.clone() }
    }

    /// Copies one indirect call's arguments into readback slot `slot`.
    pub(crate) fn copy_indirect(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        slot: u32,
        buffer: &wgpu::Buffer,
        offset: u64,
        len: u64,
    ) {
        let at = self.indirect_base + u64::from(slot) * INDIRECT_SLOT_BYTES;
        encoder.copy_buffer_to_buffer(buffer, offset, &self.readback, at, len);
    }

    /// Starts mapping the first `len` bytes; the callback only flips a flag and wakes.
    pub(crate) fn map(&mut self, len: u64) {
        let len = len.max(wgpu::MAP_ALIGNMENT).next_multiple_of(wgpu::MAP_ALIGNMENT).min(self.readback.size());
        self.mapped_len = len;
        self.map.state.store(MAPPING, Ordering::Release);
        let map = Arc::clone(&self.map);
        self.readback.map_async(wgpu::MapMode::Read, 0..len, move |result| {
            map.state.store(if result.is_ok() { MAPPED } else { FAILED }, Ordering::Release);
            map.wake.wake();
        });
    }

    /// `Some(true)` once mapped, `Some(false)` if mapping failed, `None` while in flight.
    pub(crate) fn poll_mapped(&self) -> Option<bool> {
        match self.map.state.load(Ordering::Acquire) {
            MAPPED => Some(true),
            FAILED => Some(false),
            _ => None,
        }
    }

    /// Reads the mapped bytes, then unmaps and frees the set.
    pub(crate) fn read(&mut self, read: impl FnOnce(&[u8])) {
        if self.poll_mapped() == Some(true) {
            if let Ok(view) = self.readback.get_mapped_range(0..self.mapped_len) {
                read(&view);
            }
            self.readback.unmap();
        }
        self.map.state.store(IDLE, Ordering::Release);
    }
}

/// `frames_in_flight` timer sets, each owned by at most one frame at a time.
#[derive(Debug)]
pub(crate) struct TimerPool {
    pub(crate) sets: Vec<TimerSet>,
    in_use: Vec<bool>,
    pub(crate) indirect_slots: u32,
}

impl TimerPool {
    pub(crate) fn new(
        device: &wgpu::Device,
        depth: u32,
        spans: u32,
        indirect_slots: u32,
        timestamps: bool,
        wake: &Arc<WakeSlot>,
    ) -> Self {
        let queries = if timestamps { spans * 2 } else { 0 };
        let sets = (0..depth).map(|id| TimerSet::new(device, id as u8, queries, indirect_slots, wake)).collect();
        Self { sets, in_use: vec![false; depth as usize], indirect_slots }
    }

    /// A free set, if any frame has given one back.
    pub(crate) fn acquire(&mut self) -> Option<usize> {
        let free = self.in_use.iter().position(|used| !used)?;
        self.in_use[free] = true;
        Some(free)
    }

    pub(crate) fn release(&mut self, set: usize) {
        self.in_use[set] = false;
    }
}
