//! FRAM records: one per frame, pushed when the frame closes, self-contained apart from
//! the topology and declarations it references by id (SGPT_FORMAT.md §3.5).
//!
//! ```text
//! summary:   frame_number, topology_id, gpu_duration_ns, cpu_duration_ns,
//!            dropped_spans, recorder_cost_ns        (varints; read alone to index a frame)
//! spans:     the span section (spans.rs); its first field is the span count
//! cpu:       begin_ns varint, zigzag(end − begin), flags u8 (bit0 submit, bit1 readback),
//!            then zigzag(submit − begin) and zigzag(readback − begin) when flagged,
//!            cpu span count varint, per span: graph_pass varint, zigzag(begin − cpu begin),
//!            zigzag(end − begin)
//! culled:    bit count varint, then ⌈count/8⌉ bytes, bit i (LSB-first) set = pass i culled
//! commands:  count varint, per command: zigzag(gpu_pass − previous gpu_pass), pipeline opt,
//!            op u8 and its arguments (varints unless noted):
//!              0 dispatch x y z      1 dispatch indirect: buffer offset resolved
//!              2 draw vertices instances first_vertex first_instance
//!              3 draw indexed indices instances first_index zigzag(base_vertex) first_instance
//!              4 draw indirect, 5 draw indexed indirect: buffer offset resolved
//!            resolved: u8 0 (encoded only) or 1 followed by the resolved counts
//!            (x y z for a dispatch; count instances for a draw)
//! bindings:  count varint, per binding: zigzag(command − previous command), group, bind_group
//! counters:  count varint, per sample: counter id varint, value f64 LE
//! ```
//!
//! GPU and CPU times are separate sections on separate clocks (SGPT_FORMAT.md §5). The GPU
//! duration in the summary is the extent of the frame's pass spans (sub-pass spans
//! excluded): the latest end minus the earliest begin, zero if negative. It spans query
//! sets, so it is an estimate for the frame strip; per-span times are the measurement.

use crate::error::DecodeError;
use crate::model::{
    Binding, Command, CounterSample, CpuSpan, CpuTimes, Frame, Indirect, Op, Span, SpanKind, TopologyId,
};
use crate::spans::{self, SpanScratch, SpanStream};
use crate::wire::{Cursor, apply_delta, put_opt_index, put_varint, unzigzag, zigzag};

/// What a frame's leading fields say, readable without decoding the rest.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameSummary {
    pub frame_number: u64,
    pub topology: TopologyId,
    pub gpu_duration_ns: u64,
    pub cpu_duration_ns: u64,
    pub dropped_spans: u32,
    pub recorder_cost_ns: u64,
    pub span_count: u32,
}

/// The extent of a frame's pass spans: latest end minus earliest begin, zero without spans.
#[must_use]
pub fn gpu_duration(spans: &[Span]) -> u64 {
    let mut passes = spans.iter().filter(|span| span.kind == SpanKind::Pass);
    let Some(first) = passes.next() else { return 0 };
    let (begin, end) = passes
        .fold((first.begin_ns, first.end_ns), |(begin, end), span| (begin.min(span.begin_ns), end.max(span.end_ns)));
    end.saturating_sub(begin)
}

fn delta(value: u64, base: u64) -> u64 {
    zigzag(value.wrapping_sub(base) as i64)
}

fn undelta(encoded: u64, base: u64) -> u64 {
    base.wrapping_add(unzigzag(encoded) as u64)
}

/// Appends a frame's payload.
pub fn encode(out: &mut Vec<u8>, frame: &Frame, scratch: &mut SpanScratch) {
    put_varint(out, frame.frame_number);
    put_varint(out, u64::from(frame.topology));
    put_varint(out, gpu_duration(&frame.spans));
    put_varint(out, frame.cpu.end_ns.saturating_sub(frame.cpu.begin_ns));
    put_varint(out, u64::from(frame.dropped_spans));
    put_varint(out, frame.recorder_cost_ns);
    spans::encode(out, &frame.spans, scratch);

    let cpu = &frame.cpu;
    put_varint(out, cpu.begin_ns);
    put_varint(out, delta(cpu.end_ns, cpu.begin_ns));
    out.push(u8::from(cpu.submit_ns.is_some()) | u8::from(cpu.readback_ns.is_some()) << 1);
    for time in [cpu.submit_ns, cpu.readback_ns].into_iter().flatten() {
        put_varint(out, delta(time, cpu.begin_ns));
    }
    put_varint(out, frame.cpu_spans.len() as u64);
    for span in &frame.cpu_spans {
        put_varint(out, u64::from(span.graph_pass));
        put_varint(out, delta(span.begin_ns, cpu.begin_ns));
        put_varint(out, delta(span.end_ns, span.begin_ns));
    }

    put_varint(out, frame.culled.len() as u64);
    for chunk in frame.culled.chunks(8) {
        out.push(chunk.iter().enumerate().fold(0u8, |byte, (bit, &culled)| byte | u8::from(culled) << bit));
    }

    put_varint(out, frame.commands.len() as u64);
    let mut previous_pass = 0u32;
    for command in &frame.commands {
        put_varint(out, zigzag(i64::from(command.gpu_pass) - i64::from(previous_pass)));
        previous_pass = command.gpu_pass;
        put_opt_index(out, command.pipeline);
        encode_op(out, &command.op);
    }

    put_varint(out, frame.bindings.len() as u64);
    let mut previous_command = 0u32;
    for binding in &frame.bindings {
        put_varint(out, zigzag(i64::from(binding.command) - i64::from(previous_command)));
        previous_command = binding.command;
        put_varint(out, u64::from(binding.group));
        put_varint(out, u64::from(binding.bind_group));
    }

    put_varint(out, frame.counters.len() as u64);
    for sample in &frame.counters {
        put_varint(out, u64::from(sample.counter));
        out.extend_from_slice(&sample.value.to_le_bytes());
    }
}

fn encode_op(out: &mut Vec<u8>, op: &Op) {
    let put_resolved = |out: &mut Vec<u8>, resolved: Option<&[u32]>| match resolved {
        None => out.push(0),
        Some(values) => {
            out.push(1);
            for &value in values {
                put_varint(out, u64::from(value));
            }
        }
    };
    match *op {
        Op::Dispatch { x, y, z } => {
            out.push(0);
            for value in [x, y, z] {
                put_varint(out, u64::from(value));
            }
        }
        Op::DispatchIndirect { indirect, resolved } => {
            out.push(1);
            put_varint(out, u64::from(indirect.buffer));
            put_varint(out, indirect.offset);
            put_resolved(out, resolved.as_ref().map(<[u32; 3]>::as_slice));
        }
        Op::Draw { vertices, instances, first_vertex, first_instance } => {
            out.push(2);
            for value in [vertices, instances, first_vertex, first_instance] {
                put_varint(out, u64::from(value));
            }
        }
        Op::DrawIndexed { indices, instances, first_index, base_vertex, first_instance } => {
            out.push(3);
            put_varint(out, u64::from(indices));
            put_varint(out, u64::from(instances));
            put_varint(out, u64::from(first_index));
            put_varint(out, zigzag(i64::from(base_vertex)));
            put_varint(out, u64::from(first_instance));
        }
        Op::DrawIndirect { indexed, indirect, resolved } => {
            out.push(if indexed { 5 } else { 4 });
            put_varint(out, u64::from(indirect.buffer));
            put_varint(out, indirect.offset);
            put_resolved(out, resolved.as_ref().map(<[u32; 2]>::as_slice));
        }
    }
}

/// Reads the summary fields and the span count, without decoding the spans.
pub fn decode_summary(cursor: &mut Cursor<'_>) -> Result<FrameSummary, DecodeError> {
    let frame_number = cursor.varint("frame number")?;
    let topology = cursor.varint_u32("topology id")?;
    let gpu_duration_ns = cursor.varint("GPU duration")?;
    let cpu_duration_ns = cursor.varint("CPU duration")?;
    let dropped_spans = cursor.varint_u32("dropped spans")?;
    let recorder_cost_ns = cursor.varint("recorder cost")?;
    let span_count = cursor.clone().varint_u32("span count")?;
    Ok(FrameSummary {
        frame_number,
        topology,
        gpu_duration_ns,
        cpu_duration_ns,
        dropped_spans,
        recorder_cost_ns,
        span_count,
    })
}

/// Decodes the summary and hands each span to `each`, stopping there: the fast path for
/// statistics over many frames.
pub fn decode_spans(cursor: &mut Cursor<'_>, each: impl FnMut(Span)) -> Result<FrameSummary, DecodeError> {
    let summary = decode_summary(cursor)?;
    spans::decode(cursor, each)?;
    Ok(summary)
}

/// Decodes the summary and reads the span section up to its bit stream, leaving `cursor`
/// past the section, where [`decode_tail`] reads on.
pub fn open_spans<'a>(cursor: &mut Cursor<'a>) -> Result<(FrameSummary, SpanStream<'a>), DecodeError> {
    let summary = decode_summary(cursor)?;
    Ok((summary, SpanStream::open(cursor)?))
}

/// Decodes a whole frame payload into `frame`, reusing its vectors.
pub fn decode(cursor: &mut Cursor<'_>, frame: &mut Frame) -> Result<FrameSummary, DecodeError> {
    frame.spans.clear();
    let summary = decode_spans(cursor, |span| frame.spans.push(span))?;
    frame.frame_number = summary.frame_number;
    frame.topology = summary.topology;
    frame.dropped_spans = summary.dropped_spans;
    frame.recorder_cost_ns = summary.recorder_cost_ns;
    decode_tail(cursor, frame)?;
    Ok(summary)
}

/// Decodes what follows the span section into `frame` (its CPU times, CPU spans, culled
/// passes, commands, bindings and counters), reusing its vectors.
pub fn decode_tail(cursor: &mut Cursor<'_>, frame: &mut Frame) -> Result<(), DecodeError> {
    let begin_ns = cursor.varint("CPU begin")?;
    let end_ns = undelta(cursor.varint("CPU end")?, begin_ns);
    let at = cursor.offset();
    let flags = cursor.u8("CPU flags")?;
    if flags > 3 {
        return Err(DecodeError::new(at, "CPU flags"));
    }
    let submit_ns = if flags & 1 != 0 { Some(undelta(cursor.varint("submit time")?, begin_ns)) } else { None };
    let readback_ns = if flags & 2 != 0 { Some(undelta(cursor.varint("readback time")?, begin_ns)) } else { None };
    frame.cpu = CpuTimes { begin_ns, end_ns, submit_ns, readback_ns };

    frame.cpu_spans.clear();
    let cpu_span_count = cursor.count(3, "CPU span count")?;
    for _ in 0..cpu_span_count {
        let graph_pass = cursor.varint_u32("CPU span graph pass")?;
        let span_begin = undelta(cursor.varint("CPU span begin")?, begin_ns);
        let span_end = undelta(cursor.varint("CPU span end")?, span_begin);
        frame.cpu_spans.push(CpuSpan { graph_pass, begin_ns: span_begin, end_ns: span_end });
    }

    frame.culled.clear();
    let bit_count_at = cursor.offset();
    let bit_count = cursor.varint("culled bit count")?;
    if bit_count.div_ceil(8) > cursor.remaining() as u64 {
        return Err(DecodeError::new(bit_count_at, "culled bit count"));
    }
    let bytes = cursor.bytes(bit_count.div_ceil(8) as usize, "culled bits")?;
    frame.culled.extend((0..bit_count as usize).map(|i| bytes[i / 8] >> (i % 8) & 1 == 1));

    frame.commands.clear();
    let command_count = cursor.count(3, "command count")?;
    let mut previous_pass = 0u32;
    for _ in 0..command_count {
        let at = cursor.offset();
        let gpu_pass = apply_delta(previous_pass, cursor.varint_i64("command pass")?)
            .ok_or_else(|| DecodeError::new(at, "command pass"))?;
        previous_pass = gpu_pass;
        let pipeline = cursor.opt_index("command pipeline")?;
        let op = decode_op(cursor)?;
        frame.commands.push(Command { gpu_pass, pipeline, op });
    }

    frame.bindings.clear();
    let binding_count = cursor.count(3, "binding count")?;
    let mut previous_command = 0u32;
    for _ in 0..binding_count {
        let at = cursor.offset();
        let command = apply_delta(previous_command, cursor.varint_i64("binding command")?)
            .ok_or_else(|| DecodeError::new(at, "binding command"))?;
        previous_command = command;
        let group = cursor.varint_u32("binding group")?;
        let bind_group = cursor.varint_u32("bind group")?;
        frame.bindings.push(Binding { command, group, bind_group });
    }

    frame.counters.clear();
    let counter_count = cursor.count(9, "counter count")?;
    for _ in 0..counter_count {
        let counter = cursor.varint_u32("counter id")?;
        let value = cursor.f64_le("counter value")?;
        frame.counters.push(CounterSample { counter, value });
    }
    // Trailing bytes are reserved for fields a later minor version appends; ignored.
    Ok(())
}

fn decode_op(cursor: &mut Cursor<'_>) -> Result<Op, DecodeError> {
    fn resolved<const N: usize>(cursor: &mut Cursor<'_>) -> Result<Option<[u32; N]>, DecodeError> {
        let at = cursor.offset();
        match cursor.u8("resolved flag")? {
            0 => Ok(None),
            1 => {
                let mut values = [0; N];
                for value in &mut values {
                    *value = cursor.varint_u32("resolved count")?;
                }
                Ok(Some(values))
            }
            _ => Err(DecodeError::new(at, "resolved flag")),
        }
    }
    let at = cursor.offset();
    let op = match cursor.u8("command op")? {
        0 => Op::Dispatch {
            x: cursor.varint_u32("dispatch x")?,
            y: cursor.varint_u32("dispatch y")?,
            z: cursor.varint_u32("dispatch z")?,
        },
        1 => Op::DispatchIndirect {
            indirect: Indirect {
                buffer: cursor.varint_u32("indirect buffer")?,
                offset: cursor.varint("indirect offset")?,
            },
            resolved: resolved::<3>(cursor)?,
        },
        2 => Op::Draw {
            vertices: cursor.varint_u32("draw vertices")?,
            instances: cursor.varint_u32("draw instances")?,
            first_vertex: cursor.varint_u32("draw first vertex")?,
            first_instance: cursor.varint_u32("draw first instance")?,
        },
        3 => Op::DrawIndexed {
            indices: cursor.varint_u32("draw indices")?,
            instances: cursor.varint_u32("draw instances")?,
            first_index: cursor.varint_u32("draw first index")?,
            // At its own varint, like every field (SGPT_FORMAT.md §7.1), not at the op byte.
            base_vertex: {
                let base_vertex_at = cursor.offset();
                i32::try_from(cursor.varint_i64("draw base vertex")?)
                    .map_err(|_| DecodeError::new(base_vertex_at, "draw base vertex"))?
            },
            first_instance: cursor.varint_u32("draw first instance")?,
        },
        op @ (4 | 5) => Op::DrawIndirect {
            indexed: op == 5,
            indirect: Indirect {
                buffer: cursor.varint_u32("indirect buffer")?,
                offset: cursor.varint("indirect offset")?,
            },
            resolved: resolved::<2>(cursor)?,
        },
        _ => return Err(DecodeError::new(at, "command op")),
    };
    Ok(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A frame whose only content is one command with the given pass delta.
    fn frame_with_command_delta(delta: u64) -> Vec<u8> {
        let mut out = Vec::new();
        for _ in 0..6 {
            put_varint(&mut out, 0); // summary
        }
        put_varint(&mut out, 0); // no spans
        out.extend_from_slice(&[0, 0, 0, 0, 0]); // CPU begin, end, flags, no CPU spans, no culled bits
        put_varint(&mut out, 1);
        put_varint(&mut out, delta);
        out.extend_from_slice(&[0, 0, 1, 1, 1]); // no pipeline, dispatch 1 1 1
        out.extend_from_slice(&[0, 0]); // no bindings, no counters
        out
    }

    #[test]
    fn hostile_index_deltas_are_errors_even_with_overflow_checks() {
        let mut frame = Frame::default();
        for delta in [u64::MAX, u64::MAX - 1, zigzag(-1), 1 << 40] {
            let bytes = frame_with_command_delta(delta);
            let error = decode(&mut Cursor::new(&bytes, 0), &mut frame).unwrap_err();
            assert_eq!(error.what, "command pass");
        }
        let bytes = frame_with_command_delta(zigzag(7));
        decode(&mut Cursor::new(&bytes, 0), &mut frame).unwrap();
        assert_eq!(frame.commands[0].gpu_pass, 7);
    }
}
