//! Misuse and failure are values, never panics (one enum per operation,
//! `PartialEq` so tests can compare them).

/// Why [`crate::ProfileSession::start`] refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StartError {
    #[error("the session was already started; a session records once")]
    AlreadyStarted,
    #[error("another session is recording on this device; stop it first")]
    DeviceInUse,
    #[error("the device was lost before the session started")]
    DeviceLost,
    #[error("invalid session options: {0}")]
    Options(&'static str),
    #[error("the capture could not be started: {0}")]
    Write(String),
}

/// Why a frame hook, `stop()` or `snapshot()` failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    #[error("the session was never started")]
    NotStarted,
    #[error("the device this session records was lost or destroyed")]
    DeviceLost,
    #[error("begin_frame() was called while frame {0} is still open")]
    FrameAlreadyOpen(u64),
    #[error("no frame is open: call begin_frame() first")]
    NoFrameOpen,
    #[error(
        "graph pass {index} is {recorded:?} in this session's structure, not {given:?}: give each graph pass its own index, or open brackets by name with GraphPassScope::named"
    )]
    GraphPassName { index: u32, recorded: String, given: String },
    #[error("the capture could not be written: {0}")]
    Write(String),
    #[error("this sink cannot read its capture back: {0}")]
    Snapshot(String),
}

impl From<sgpt_format::WriteError> for RecordError {
    fn from(error: sgpt_format::WriteError) -> Self {
        RecordError::Write(error.to_string())
    }
}
