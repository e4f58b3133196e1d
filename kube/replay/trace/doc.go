// Package trace reads public cluster traces into a [replay.Input], and
// generates a day of the same shape for tests and benchmarks:
//
//   - [ReadOpenB]: Alibaba's openb GPU trace (cluster-trace-gpu-v2023,
//     Weng et al., "Beware of Fragmentation", ATC'23): 1,523 nodes and
//     8,152 pods with creation, scheduling and deletion times. Research
//     and study use only: never copy it into a repository; tests read it
//     from $GANGSCHED_OPENB or ../shared/data and skip without it.
//   - [ReadPAIMachines]: the machine list of cluster-trace-gpu-v2020 (CC
//     BY 4.0, with attribution; kube/testdata/clusters/pai holds it).
//   - [ReadDLRM]: the DLRM serving instances of cluster-trace-gpu-v2025,
//     an app's instances created in one second taken as a gang. Research
//     use only, like openb.
//   - [GenerateDay]: a seeded day of gangs and lone pods on a cluster of
//     8-GPU hosts in racks.
//
// Readers take an io.Reader and a name for errors, which name the file,
// the line and the column; every number must be a non-negative finite
// value. Trace times are seconds from [Epoch].
package trace
