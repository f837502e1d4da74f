//! One session per device: a process-wide claim, released when the session ends.

use std::hash::{BuildHasher, BuildHasherDefault, DefaultHasher};
use std::sync::{Mutex, PoisonError};

use crate::StartError;

/// Devices with a recording session, by identity hash. wgpu's `Device: Eq` compares ids
/// unique within one `wgpu::Instance` (an application has one); a session holds its
/// device, so an id is not reused while its claim exists.
static CLAIMED: Mutex<Vec<u64>> = Mutex::new(Vec::new());

#[derive(Debug)]
pub(crate) struct DeviceClaim(u64);

impl DeviceClaim {
    pub(crate) fn take(device: &wgpu::Device) -> Result<Self, StartError> {
        // `Device` hashes by identity; a fixed-key hasher keeps the value stable in-process.
        let key = BuildHasherDefault::<DefaultHasher>::default().hash_one(device);
        let mut claimed = CLAIMED.lock().unwrap_or_else(PoisonError::into_inner);
        if claimed.contains(&key) {
            return Err(StartError::DeviceInUse);
        }
        claimed.push(key);
        Ok(Self(key))
    }
}

impl Drop for DeviceClaim {
    fn drop(&mut self) {
        CLAIMED.lock().unwrap_or_else(PoisonError::into_inner).retain(|&key| key != self.0);
    }
}
