package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"

	"github.com/gangsched/gangsched/kube"
	"github.com/gangsched/gangsched/kube/manifest"
	"github.com/gangsched/gangsched/placement"
)

const clusters = "../../testdata/clusters"

// TestGolden: the committed Node manifests are exactly what the converter
// makes from the committed source tables, so neither can drift.
func TestGolden(t *testing.T) {
	for _, c := range []struct{ format, dir, csv string }{
		{"lingjun", "lingjun", "topo.csv"},
		{"pai", "pai", "pai_machine_spec.csv"},
	} {
		t.Run(c.format, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run([]string{"-format", c.format, filepath.Join(clusters, c.dir, c.csv)}, nil, &out, &errb)
			require.Equal(t, 0, code, errb.String())
			want, err := os.ReadFile(filepath.Join(clusters, c.dir, "nodes.yaml"))
			require.NoError(t, err)
			require.Equal(t, string(want), out.String(), "regenerate with: go run ./cmd/gangsim-nodes -format %s -o testdata/clusters/%s/nodes.yaml testdata/clusters/%s/%s", c.format, c.dir, c.dir, c.csv)
		})
	}
}

// readNodes reads a generated manifest through the same path gangsim uses.
func readNodes(t *testing.T, path string) []placement.Node {
	objs, err := manifest.Read([]string{path}, nil, manifest.Options{})
	require.NoError(t, err)
	var nodes []placement.Node
	for _, o := range objs {
		n, err := kube.ConvertNode(o.Obj.(*corev1.Node))
		require.NoError(t, o.Wrap(err))
		nodes = append(nodes, n)
	}
	return nodes
}

func TestLingjunCluster(t *testing.T) {
	nodes := readNodes(t, filepath.Join(clusters, "lingjun", "nodes.yaml"))
	require.Len(t, nodes, 847)
	racks := map[string]int{}
	blocks := map[string]int{}
	var gpus int64
	for _, n := range nodes {
		racks[n.Labels[labelRack]]++
		blocks[n.Labels[labelBlock]]++
		gpus += n.Allocatable[placement.ResourceGPU]
		require.Equal(t, "G6", n.Labels[labelZone])
		require.Equal(t, n.Name, n.Labels[labelHostname])
	}
	// The figures of the dataset's SOURCE.md: 3 aggregation switches with
	// 179, 306 and 362 hosts, 119 racks of 2..8 hosts (68 of 8).
	require.Equal(t, map[string]int{"P8": 179, "P10": 362, "P12": 306}, blocks)
	require.Len(t, racks, 119)
	full := 0
	for _, n := range racks {
		require.True(t, n >= 2 && n <= 8, "rack of %d hosts", n)
		if n == 8 {
			full++
		}
	}
	require.Equal(t, 68, full)
	require.Equal(t, int64(847*8), gpus)
	_, err := placement.NewSnapshot(nodes, nil)
	require.NoError(t, err)
}

func TestPAICluster(t *testing.T) {
	nodes := readNodes(t, filepath.Join(clusters, "pai", "nodes.yaml"))
	require.Len(t, nodes, 1897)
	byType := map[string]int{}
	var gpus, cpu int64
	for _, n := range nodes {
		byType[n.Labels[labelGPUProduct]]++
		gpus += n.Allocatable[placement.ResourceGPU]
		cpu += n.Allocatable[placement.ResourceCPU]
	}
	require.Equal(t, map[string]int{"": 83, "MISC": 280, "P100": 798, "T4": 497, "V100": 104, "V100M32": 135}, byType)
	require.Equal(t, int64(6742), gpus)
	require.Equal(t, int64((798*64+(1897-798)*96)*1000), cpu)
}

func TestOrderAndLabels(t *testing.T) {
	in := "ip,DSW,PSW,ASW\n" +
		"bbbbbbbbbbbbbbbb,G1,P10,S2\n" +
		"aaaaaaaaaaaaaaaa,G1,P10,S10\n" +
		"cccccccccccccccc,G1,P8,S2\n"
	nodes, err := lingjun("t.csv", strings.NewReader(in), capacity{gpus: 0, pods: 4})
	require.NoError(t, err)
	var got []string
	for _, n := range nodes {
		got = append(got, n.Name+"@"+n.Labels[labelRack])
		_, hasGPU := n.Status.Allocatable["nvidia.com/gpu"]
		require.False(t, hasGPU, "-gpus 0 lists no GPU resource")
	}
	require.Equal(t, []string{"lj-cccccccccccc@P8-S2", "lj-bbbbbbbbbbbb@P10-S2", "lj-aaaaaaaaaaaa@P10-S10"}, got)
	require.Equal(t, -1, compareNatural("P8", "P10"))
	require.Equal(t, 1, compareNatural("S10", "S9"))
	require.Equal(t, -1, compareNatural("a", "ab"))
	require.Equal(t, 0, compareNatural("x01", "x1"))
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
		return p
	}
	cases := []struct {
		name string
		args []string
		in   string
		code int
		err  string
	}{
		{"no format", []string{"x.csv"}, "", 2, `-format "": want lingjun or pai`},
		{"no file", []string{"-format", "pai"}, "", 2, "usage: gangsim-nodes"},
		{"bad cpu", []string{"-format", "lingjun", "-cpu", "many", "x"}, "", 2, `-cpu "many": not a non-negative quantity`},
		{"negative gpus", []string{"-format", "lingjun", "-gpus", "-1", "x"}, "", 2, "-gpus and -pods must not be negative"},
		{"missing file", []string{"-format", "pai", filepath.Join(dir, "none.csv")}, "", 1, "no such file"},
		{"header", []string{"-format", "lingjun", write("h.csv", "ip,PSW,DSW,ASW\n")}, "", 1, `h.csv:1: header is "ip,PSW,DSW,ASW", want "ip,DSW,PSW,ASW"`},
		{"columns", []string{"-format", "lingjun", write("c.csv", "ip,DSW,PSW,ASW\nabcdefabcdefab,G6,P8\n")}, "", 1, "c.csv:2: 3 columns, want 4 (ip,DSW,PSW,ASW)"},
		{"empty field", []string{"-format", "lingjun", "-"}, "ip,DSW,PSW,ASW\nabcdefabcdefab,G6,,S1\n", 1, "-:2: column PSW: empty"},
		{"not hex", []string{"-format", "lingjun", "-"}, "ip,DSW,PSW,ASW\n10.0.0.1,G6,P8,S1\n", 1, `-:2: column ip: "10.0.0.1" is not a hex hash of at least 12 digits`},
		{"duplicate", []string{"-format", "lingjun", "-"}, "ip,DSW,PSW,ASW\nabcdefabcdef01,G6,P8,S1\nabcdefabcdef02,G6,P8,S1\n", 1, "-:3: column ip: node name lj-abcdefabcdef is taken by line 2"},
		{"no rows", []string{"-format", "lingjun", "-"}, "ip,DSW,PSW,ASW\n", 1, "-: no rows"},
		{"pai number", []string{"-format", "pai", "-"}, "m1,V100,96,512,8\nm2,V100,ninety,512,8\n", 1, `-:2: column cap_cpu: "ninety" is not a non-negative integer`},
		{"pai negative", []string{"-format", "pai", "-"}, "m1,V100,96,512,-8\n", 1, `-:1: column cap_gpu: "-8" is not a non-negative integer`},
		{"pai memory", []string{"-format", "pai", "-"}, "m1,V100,96,99999999999,8\n", 1, `-:1: column cap_mem: 99999999999 GiB is implausible`},
		{"pai duplicate", []string{"-format", "pai", "-"}, "m1,V100,96,512,8\nM1,V100,96,512,8\n", 1, "-:2: column machine: node name pai-m1 is taken by line 1"},
		{"pai cpu", []string{"-format", "pai", "-"}, "m1,V100,99999999,512,8\n", 1, `-:1: column cap_cpu: 99999999 cores is implausible`},
		{"pai name", []string{"-format", "pai", "-"}, "m_1,V100,96,512,8\n", 1, `-:1: column machine: "m_1" does not make a node name`},
		{"pai gpu type", []string{"-format", "pai", "-"}, "m1,V 100,96,512,8\n", 1, `-:1: column gpu_type: "V 100" is not a label value`},
		{"lingjun label", []string{"-format", "lingjun", "-"}, "ip,DSW,PSW,ASW\nabcdefabcdef01,G6,P8,S/1\n", 1, `-:2: column ASW: "S/1" is not a label value`},
		{"csv syntax", []string{"-format", "pai", "-"}, "m1,\"V100,96,512,8\n", 1, `-:1: extraneous or missing " in quoted-field`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(c.args, strings.NewReader(c.in), &out, &errb)
			require.Equal(t, c.code, code, errb.String())
			require.Contains(t, errb.String(), c.err)
			require.Empty(t, out.String(), "nothing is written on error")
		})
	}
}

// FuzzLingjun and FuzzPAI: any input gives nodes or an error, never a
// panic, and accepted nodes convert cleanly.
func FuzzLingjun(f *testing.F) {
	f.Add("ip,DSW,PSW,ASW\nabcdefabcdef01,G6,P8,S1\n")
	f.Add("ip,DSW,PSW,ASW\n\"a\"\"b\",1,2,3\n")
	f.Fuzz(func(t *testing.T, in string) {
		nodes, err := lingjun("f.csv", strings.NewReader(in), capacity{gpus: 8, pods: 110})
		checkNodes(t, nodes, err)
	})
}

func FuzzPAI(f *testing.F) {
	f.Add("m1,V100,96,512,8\n")
	f.Add("m1,CPU,96,512,0\nm2,T4,96,512,2\n")
	f.Fuzz(func(t *testing.T, in string) {
		nodes, err := pai("f.csv", strings.NewReader(in), capacity{pods: 110})
		checkNodes(t, nodes, err)
	})
}

func checkNodes(t *testing.T, nodes []corev1.Node, err error) {
	if err != nil {
		require.Empty(t, nodes)
		return
	}
	require.NotEmpty(t, nodes)
	var pn []placement.Node
	for i := range nodes {
		n, err := kube.ConvertNode(&nodes[i])
		require.NoError(t, err)
		pn = append(pn, n)
	}
	_, err = placement.NewSnapshot(pn, nil)
	require.NoError(t, err)
}
