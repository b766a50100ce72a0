"""bench/run load: a mixed workload from Locust against scripts/cluster (docs/scaling.md)."""
