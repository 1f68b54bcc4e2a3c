//! Measurement: timers, hardware counters, the sampling loop, heap and stack meters.

pub mod counters;
pub mod heap;
pub mod sampler;
pub mod stack;
pub mod timer;
