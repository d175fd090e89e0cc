"""The analytic model of the lab's kernels (memory sectors per request, shared-memory bank conflicts,
occupancy) and its pictures."""
