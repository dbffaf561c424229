//! Reliability suites with large budgets or many child processes (docs/reliability.md): crash kills,
//! concurrent writers and readers, fuzz targets, big files. Budgets: see each module.

mod concurrency_stress;
mod crash;
mod day_limit;
// The fuzz suite measures allocations with a counting global allocator (a thin `unsafe`
// wrapper around `System`).
#[allow(unsafe_code)]
mod fuzz;
mod hostile_size;
