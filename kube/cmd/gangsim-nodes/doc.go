// Command gangsim-nodes converts public cluster inventories into Kubernetes
// Node manifests that gangsim (and kubectl) read.
//
// Usage:
//
//	gangsim-nodes -format lingjun [-gpus 8 -cpu 128 -memory 1Ti -pods 110] topo.csv > nodes.yaml
//	gangsim-nodes -format pai [-pods 110] pai_machine_spec.csv > nodes.yaml
//
// Formats:
//
//   - lingjun: the Alibaba Lingjun GPU cluster topology of the Crux paper
//     (alibaba-lingjun-dataset-2023 data/topo.csv: ip,DSW,PSW,ASW). Each host
//     becomes a Node named "lj-" plus the first 12 hex digits of its hashed
//     ip, labelled topology.kubernetes.io/zone (the core switch, DSW),
//     topology.kubernetes.io/block (the aggregation switch, PSW),
//     topology.kubernetes.io/rack (the ToR switch, keyed PSW-ASW because
//     ASW names repeat across PSWs) and kubernetes.io/hostname. The file
//     gives no capacities: -gpus, -cpu and -memory set them for every host.
//   - pai: the machine table of Alibaba's PAI GPU trace v2020
//     (pai_machine_spec.csv: machine,gpu_type,cap_cpu,cap_mem,cap_gpu; no
//     header). Each machine becomes a Node named "pai-" plus its hashed
//     name, with cpu cap_cpu cores, memory cap_mem GiB and nvidia.com/gpu
//     cap_gpu, labelled kubernetes.io/hostname and, for GPU machines,
//     nvidia.com/gpu.product (P100, T4, V100, V100M32, MISC).
//
// Nodes are written in a stable order (lingjun: by zone, block, rack, name;
// pai: by name), one YAML document each, with status.allocatable
// only (what kube-scheduler reads). Bad input (a wrong column count, a missing field, a number that
// does not parse, a duplicate name) stops the command with exit code 1 and
// a message naming the file, line and column.
package main
