package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Label keys of the generated nodes.
const (
	labelHostname   = "kubernetes.io/hostname"
	labelZone       = "topology.kubernetes.io/zone"
	labelBlock      = "topology.kubernetes.io/block"
	labelRack       = "topology.kubernetes.io/rack"
	labelGPUProduct = "nvidia.com/gpu.product"
)

// capacity is what every lingjun host gets, and the pod limit of every node.
type capacity struct {
	gpus   int64
	cpu    resource.Quantity
	memory resource.Quantity
	pods   int64
}

// lineError locates bad input in a CSV file.
type lineError struct {
	file   string
	line   int
	column string
	msg    string
}

func (e *lineError) Error() string {
	if e.column == "" {
		return fmt.Sprintf("%s:%d: %s", e.file, e.line, e.msg)
	}
	return fmt.Sprintf("%s:%d: column %s: %s", e.file, e.line, e.column, e.msg)
}

// readCSV reads all records, checking the column count; it returns each
// record with its line number.
func readCSV(file string, r io.Reader, columns []string, header bool) ([][]string, []int, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	var recs [][]string
	var lines []int
	for first := true; ; first = false {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, nil, &lineError{file: file, line: pe.Line, msg: pe.Err.Error()}
			}
			return nil, nil, fmt.Errorf("%s: %w", file, err)
		}
		line, _ := cr.FieldPos(0)
		if first && header {
			if !slices.Equal(rec, columns) {
				return nil, nil, &lineError{file: file, line: line, msg: fmt.Sprintf("header is %q, want %q", strings.Join(rec, ","), strings.Join(columns, ","))}
			}
			continue
		}
		if len(rec) != len(columns) {
			return nil, nil, &lineError{file: file, line: line, msg: fmt.Sprintf("%d columns, want %d (%s)", len(rec), len(columns), strings.Join(columns, ","))}
		}
		for i, f := range rec {
			if strings.TrimSpace(f) == "" {
				return nil, nil, &lineError{file: file, line: line, column: columns[i], msg: "empty"}
			}
		}
		recs = append(recs, rec)
		lines = append(lines, line)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%s: no rows", file)
	}
	return recs, lines, nil
}

func node(name string, labels map[string]string, res corev1.ResourceList) corev1.Node {
	labels[labelHostname] = name
	return corev1.Node{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Node"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels},
		Status:     corev1.NodeStatus{Capacity: res, Allocatable: res},
	}
}

// lingjun converts topo.csv (ip,DSW,PSW,ASW).
func lingjun(file string, r io.Reader, c capacity) ([]corev1.Node, error) {
	recs, lines, err := readCSV(file, r, []string{"ip", "DSW", "PSW", "ASW"}, true)
	if err != nil {
		return nil, err
	}
	res := corev1.ResourceList{
		corev1.ResourceCPU:    c.cpu,
		corev1.ResourceMemory: c.memory,
		corev1.ResourcePods:   *resource.NewQuantity(c.pods, resource.DecimalSI),
	}
	if c.gpus > 0 {
		res["nvidia.com/gpu"] = *resource.NewQuantity(c.gpus, resource.DecimalSI)
	}
	seen := map[string]int{}
	var nodes []corev1.Node
	for i, rec := range recs {
		ip := strings.ToLower(rec[0])
		if len(ip) < 12 || strings.Trim(ip, "0123456789abcdef") != "" {
			return nil, &lineError{file: file, line: lines[i], column: "ip", msg: fmt.Sprintf("%q is not a hex hash of at least 12 digits", rec[0])}
		}
		for c := 1; c <= 3; c++ {
			if !labelValue(rec[c]) || len(rec[2])+len(rec[3]) > 62 {
				return nil, &lineError{file: file, line: lines[i], column: []string{"ip", "DSW", "PSW", "ASW"}[c], msg: fmt.Sprintf("%q is not a label value", rec[c])}
			}
		}
		name := "lj-" + ip[:12]
		if prev, dup := seen[name]; dup {
			return nil, &lineError{file: file, line: lines[i], column: "ip", msg: fmt.Sprintf("node name %s is taken by line %d", name, prev)}
		}
		seen[name] = lines[i]
		nodes = append(nodes, node(name, map[string]string{
			labelZone:  rec[1],
			labelBlock: rec[2],
			labelRack:  rec[2] + "-" + rec[3],
		}, res))
	}
	slices.SortFunc(nodes, func(a, b corev1.Node) int {
		for _, k := range []string{labelZone, labelBlock, labelRack} {
			if c := compareNatural(a.Labels[k], b.Labels[k]); c != 0 {
				return c
			}
		}
		return strings.Compare(a.Name, b.Name)
	})
	return nodes, nil
}

// compareNatural orders "P8" before "P10": digit runs compare as numbers.
func compareNatural(a, b string) int {
	for a != "" && b != "" {
		da, db := digits(a), digits(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if na != nb {
				if na < nb {
					return -1
				}
				return 1
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			if a[0] < b[0] {
				return -1
			}
			return 1
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digits(s string) int {
	n := 0
	for n < len(s) && n < 18 && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// pai converts pai_machine_spec.csv (machine,gpu_type,cap_cpu,cap_mem,cap_gpu).
func pai(file string, r io.Reader, c capacity) ([]corev1.Node, error) {
	cols := []string{"machine", "gpu_type", "cap_cpu", "cap_mem", "cap_gpu"}
	recs, lines, err := readCSV(file, r, cols, false)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	var nodes []corev1.Node
	for i, rec := range recs {
		num := func(col int) (int64, error) {
			v, err := strconv.ParseInt(rec[col], 10, 64)
			if err != nil || v < 0 {
				return 0, &lineError{file: file, line: lines[i], column: cols[col], msg: fmt.Sprintf("%q is not a non-negative integer", rec[col])}
			}
			return v, nil
		}
		cpu, err := num(2)
		if err != nil {
			return nil, err
		}
		mem, err := num(3)
		if err != nil {
			return nil, err
		}
		gpu, err := num(4)
		if err != nil {
			return nil, err
		}
		if cpu > 1<<20 {
			return nil, &lineError{file: file, line: lines[i], column: "cap_cpu", msg: fmt.Sprintf("%d cores is implausible", cpu)}
		}
		if mem > 1<<23 { // keeps GiB → bytes inside int64 by a wide margin
			return nil, &lineError{file: file, line: lines[i], column: "cap_mem", msg: fmt.Sprintf("%d GiB is implausible", mem)}
		}
		if !labelValue(rec[0]) || len(rec[0]) > 59 || strings.Contains(rec[0], "_") {
			return nil, &lineError{file: file, line: lines[i], column: "machine", msg: fmt.Sprintf("%q does not make a node name (letters, digits, '-', '.'; at most 59)", rec[0])}
		}
		if !labelValue(rec[1]) {
			return nil, &lineError{file: file, line: lines[i], column: "gpu_type", msg: fmt.Sprintf("%q is not a label value", rec[1])}
		}
		name := "pai-" + strings.ToLower(rec[0])
		if prev, dup := seen[name]; dup {
			return nil, &lineError{file: file, line: lines[i], column: "machine", msg: fmt.Sprintf("node name %s is taken by line %d", name, prev)}
		}
		seen[name] = lines[i]
		res := corev1.ResourceList{
			corev1.ResourceCPU:    *resource.NewQuantity(cpu, resource.DecimalSI),
			corev1.ResourceMemory: *resource.NewQuantity(mem<<30, resource.BinarySI),
			corev1.ResourcePods:   *resource.NewQuantity(c.pods, resource.DecimalSI),
		}
		labels := map[string]string{}
		if gpu > 0 {
			res["nvidia.com/gpu"] = *resource.NewQuantity(gpu, resource.DecimalSI)
			labels[labelGPUProduct] = rec[1]
		}
		nodes = append(nodes, node(name, labels, res))
	}
	slices.SortFunc(nodes, func(a, b corev1.Node) int { return strings.Compare(a.Name, b.Name) })
	return nodes, nil
}

// labelValue reports whether s is a valid Kubernetes label value (at most
// 63 characters: letters, digits, '-', '_', '.', starting and ending with
// a letter or digit).
func labelValue(s string) bool {
	if s == "" || len(s) > 63 {
		return false
	}
	alnum := func(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	for i := 0; i < len(s); i++ {
		if c := s[i]; !alnum(c) && c != '-' && c != '_' && c != '.' {
			return false
		}
	}
	return alnum(s[0]) && alnum(s[len(s)-1])
}
