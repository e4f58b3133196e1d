// Command ratios turns the output of
//
//	go test -run '^$' -bench . -benchmem -count 5 ./internal/bench/
//
// into the Markdown tables of BENCHMARKS.md: one row per workload W that
// has a BenchmarkDecision/W line, with the decision's time per op, the
// floor's (BenchmarkFloor/W), their ratio, and the decision's B/op and
// allocs/op — each the median over every line of that benchmark (one per
// -count run), the figure benchstat reports. Rows keep the order of the
// input unless -sort ratio puts the largest ratios first. Every table
// names the unit its times were read from.
//
// Usage:
//
//	ratios [-sort ratio] [-extra unit,...] [-match prefix] [-unit u] [-grid [-answer | -answered]] [-before file] [file ...]
//
// It reads the files, or standard input when none is given. -extra adds a
// column per custom metric unit of the decision (e.g. -extra placed,steps);
// -match keeps the workloads whose name starts with one of the
// comma-separated prefixes. Times are read from cpu-ns/op, the CPU time
// the benchmarks of internal/bench report, which varies far less than the
// wall time on a machine shared with other work; -unit ns/op reads the
// wall time instead (runs older than cpu-ns/op have only that). A
// workload without a floor gets "—" in the floor and ratio columns. The
// trailing "-<GOMAXPROCS>" of each benchmark name is dropped.
//
// -before file prints, instead, each workload's decision before (from that
// file, a run of the code before) and after (the other files), the
// speed-up, and each run's ratio to its own floor.
//
// -grid prints the ratios alone as a grid instead, for a matrix of
// workloads such as n=10000/p=512/block/empty: the last two parts of the
// name pick the column, the rest the row (podset/n=10000/p=512 for
// podset/n=10000/p=512/block/empty).
//
// -grid -answer prints, in the same grid, the least ratio a decision that
// answers its gang member by member can reach: (BenchmarkMemberAnswer/p=<k>
// + the floor) / the floor, for a workload whose name has a part p=<k>;
// "—" where the input has no such line, and for pod sets (podset/…).
//
// -grid -answered prints, in the same grid, decision / (floor + answer)
// for a workload W with an answer line, BenchmarkResizeAnswer/W or
// BenchmarkPlanAnswer/W: the ratio to a floor that also writes the least
// answer W's decision must write (for an elastic cell, the delta's rows
// and the grown set's, and the compare of Existing with the reservation;
// for a plan cell, its ranks and rows); "—" where the input has none.
//
// -grid needs workloads of at least three parts: pick them with -match
// (n= for the matrix, podset/ for the pod set matrix).
package main

import (
	"bufio"
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

func main() {
	if err := run(os.Args[1:], os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ratios:", err)
		os.Exit(1)
	}
}

const (
	decisionPrefix = "BenchmarkDecision/"
	floorPrefix    = "BenchmarkFloor/"
	answerPrefix   = "BenchmarkMemberAnswer/"
	resizePrefix   = "BenchmarkResizeAnswer/"
	planPrefix     = "BenchmarkPlanAnswer/"
)

func run(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("ratios", flag.ContinueOnError)
	sortBy := fs.String("sort", "", `"ratio" to list the largest decision/floor ratios first`)
	extra := fs.String("extra", "", "comma-separated custom metric units of the decision to add as columns")
	match := fs.String("match", "", "keep only workloads whose name starts with one of these comma-separated prefixes")
	before := fs.String("before", "", "a file of the same benchmarks run on the code before: print before and after side by side")
	grid := fs.Bool("grid", false, "print the ratios as a grid: columns by the last two /-separated parts of the name, rows by the rest")
	answer := fs.Bool("answer", false, "with -grid: print (BenchmarkMemberAnswer/p=<k> + floor) / floor instead of decision / floor")
	answered := fs.Bool("answered", false, "with -grid: print decision / (floor + Benchmark{Resize,Plan}Answer/<workload>) instead of decision / floor")
	unit := fs.String("unit", "cpu-ns/op", "the metric to read times from: cpu-ns/op (CPU time) or ns/op (wall time)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *sortBy != "" && *sortBy != "ratio" {
		return fmt.Errorf("-sort %q: want ratio", *sortBy)
	}
	if (*answer || *answered) && !*grid {
		return errors.New("-answer and -answered go with -grid")
	}
	if *answer && *answered {
		return errors.New("-answer and -answered: pick one")
	}
	var extras []string
	if *extra != "" {
		extras = strings.Split(*extra, ",")
	}
	res := newResults()
	if fs.NArg() == 0 {
		if err := res.read(stdin); err != nil {
			return err
		}
	}
	for _, name := range fs.Args() {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		err = res.read(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	if err := res.timesFrom(*unit); err != nil {
		return err
	}
	rows := res.rows(*match)
	if len(rows) == 0 {
		return errors.New("no BenchmarkDecision lines in the input")
	}
	if *sortBy == "ratio" {
		slices.SortStableFunc(rows, func(a, b row) int { return cmp.Compare(b.ratio(), a.ratio()) })
	}
	if *grid && *answer {
		return writeGrid(stdout, rows, "(answer+floor)/floor, "+*unit, res.answerRatio)
	}
	if *grid && *answered {
		return writeGrid(stdout, rows, "decision/(floor+answer), "+*unit, res.answeredRatio)
	}
	if *grid {
		return writeGrid(stdout, rows, "decision/floor, "+*unit, row.ratio)
	}
	if *before != "" {
		old := newResults()
		f, err := os.Open(*before)
		if err != nil {
			return err
		}
		err = old.read(f)
		f.Close()
		if err == nil {
			err = old.timesFrom(*unit)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", *before, err)
		}
		return writeBeforeAfter(stdout, old, rows, *unit)
	}
	return write(stdout, rows, extras, *unit)
}

// timesFrom makes unit the time every table reads (as ns/op): an error
// names the first benchmark the tables read (a decision, a floor, a member
// answer) without it. Others are left alone.
func (r *results) timesFrom(unit string) error {
	if unit == "ns/op" {
		return nil
	}
	for _, name := range slices.Sorted(maps.Keys(r.values)) {
		if !strings.HasPrefix(name, decisionPrefix) && !strings.HasPrefix(name, floorPrefix) && !strings.HasPrefix(name, answerPrefix) && !strings.HasPrefix(name, resizePrefix) && !strings.HasPrefix(name, planPrefix) {
			continue
		}
		v, ok := r.values[name][unit]
		if !ok {
			return fmt.Errorf("-unit %s: %s does not report it (-unit ns/op reads the wall time)", unit, name)
		}
		r.values[name]["ns/op"] = v
	}
	return nil
}

// writeBeforeAfter writes, per workload of rows (the code after), the
// decision's median ns/op before and after, the speed-up, both ratios to
// the floor of their own run, and the after B/op and allocs/op. A
// workload the before file lacks gets dashes.
func writeBeforeAfter(w io.Writer, old *results, rows []row, unit string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| workload | before %s | after %s | speed-up | before/floor | after/floor | after B/op | after allocs/op |\n", unit, unit)
	b.WriteString("|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rows {
		o := row{workload: r.workload, decision: old.values[decisionPrefix+r.workload], floor: old.values[floorPrefix+r.workload]}
		speedup := "—"
		if x := median(o.decision["ns/op"]) / median(r.decision["ns/op"]); finite(x) {
			speedup = formatRatio(x) + "×"
		}
		oldRatio, newRatio := "—", "—"
		if o.floor != nil {
			oldRatio = formatRatio(o.ratio())
		}
		if r.floor != nil {
			newRatio = formatRatio(r.ratio())
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r.workload, number(o.decision["ns/op"]), number(r.decision["ns/op"]),
			speedup, oldRatio, newRatio, number(r.decision["B/op"]), number(r.decision["allocs/op"]))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// results holds every value of every metric of every benchmark, by name
// without the GOMAXPROCS suffix.
type results struct {
	order  []string                        // workload names, first seen first
	values map[string]map[string][]float64 // benchmark name -> unit -> values
}

func newResults() *results { return &results{values: map[string]map[string][]float64{}} }

// read parses go test -bench output; lines that are not benchmark results
// are skipped.
func (r *results) read(in io.Reader) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		if _, err := strconv.Atoi(f[1]); err != nil {
			continue // not a result line (e.g. a log line)
		}
		name := trimProcs(f[0])
		m := r.values[name]
		if m == nil {
			m = map[string][]float64{}
			r.values[name] = m
			if w, ok := strings.CutPrefix(name, decisionPrefix); ok {
				r.order = append(r.order, w)
			}
		}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				return fmt.Errorf("benchmark %s: value %q: %w", f[0], f[i], err)
			}
			m[f[i+1]] = append(m[f[i+1]], v)
		}
	}
	return sc.Err()
}

// trimProcs drops the "-<GOMAXPROCS>" suffix go test adds to a name.
func trimProcs(name string) string {
	i := strings.LastIndexByte(name, '-')
	if i < 0 {
		return name
	}
	if _, err := strconv.Atoi(name[i+1:]); err != nil {
		return name
	}
	return name[:i]
}

type row struct {
	workload        string
	decision, floor map[string][]float64 // floor nil when absent
}

func (r row) ratio() float64 {
	if r.floor == nil {
		return math.Inf(-1)
	}
	return median(r.decision["ns/op"]) / median(r.floor["ns/op"])
}

// answerRatio is (BenchmarkMemberAnswer/p=<k> + floor) / floor for a
// workload with a part p=<k>; NaN without a floor or such a benchmark, and
// for a pod set's workload (podset/…), which is not answered member by
// member.
func (r *results) answerRatio(w row) float64 {
	if w.floor == nil || strings.HasPrefix(w.workload, "podset/") {
		return math.NaN()
	}
	for part := range strings.SplitSeq(w.workload, "/") {
		if strings.HasPrefix(part, "p=") {
			a, ok := r.values[answerPrefix+part]
			if !ok {
				break
			}
			f := median(w.floor["ns/op"])
			return (median(a["ns/op"]) + f) / f
		}
	}
	return math.NaN()
}

// answeredRatio is decision / (floor + answer) for workload W, the answer
// BenchmarkResizeAnswer/W or else BenchmarkPlanAnswer/W; NaN without a
// floor or either benchmark.
func (r *results) answeredRatio(w row) float64 {
	a, ok := r.values[resizePrefix+w.workload]
	if !ok {
		a, ok = r.values[planPrefix+w.workload]
	}
	if w.floor == nil || !ok {
		return math.NaN()
	}
	return median(w.decision["ns/op"]) / (median(w.floor["ns/op"]) + median(a["ns/op"]))
}

func (r *results) rows(match string) []row {
	prefixes := strings.Split(match, ",")
	var out []row
	for _, w := range r.order {
		if !slices.ContainsFunc(prefixes, func(p string) bool { return strings.HasPrefix(w, p) }) {
			continue
		}
		out = append(out, row{workload: w, decision: r.values[decisionPrefix+w], floor: r.values[floorPrefix+w]})
	}
	return out
}

func write(w io.Writer, rows []row, extras []string, unit string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "| workload | decision %s | floor %s | decision/floor | B/op | allocs/op |", unit, unit)
	for _, e := range extras {
		b.WriteString(" " + e + " |")
	}
	b.WriteString("\n|---|---:|---:|---:|---:|---:|")
	for range extras {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		floor, ratio := "—", "—"
		if r.floor != nil {
			floor, ratio = number(r.floor["ns/op"]), formatRatio(r.ratio())
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |", r.workload, number(r.decision["ns/op"]), floor, ratio,
			number(r.decision["B/op"]), number(r.decision["allocs/op"]))
		for _, e := range extras {
			b.WriteString(" " + number(r.decision[e]) + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeGrid writes ratio of each of rows as a grid headed title; rows and
// columns keep their first appearance's order.
func writeGrid(w io.Writer, rows []row, title string, ratio func(row) float64) error {
	var rowKeys, colKeys []string
	cells := map[[2]string]string{}
	for _, r := range rows {
		parts := strings.Split(r.workload, "/")
		if len(parts) < 3 {
			return fmt.Errorf("-grid: workload %q has fewer than three /-separated parts", r.workload)
		}
		rk, ck := strings.Join(parts[:len(parts)-2], "/"), strings.Join(parts[len(parts)-2:], "/")
		if !slices.Contains(rowKeys, rk) {
			rowKeys = append(rowKeys, rk)
		}
		if !slices.Contains(colKeys, ck) {
			colKeys = append(colKeys, ck)
		}
		cells[[2]string{rk, ck}] = "—"
		if r.floor != nil {
			cells[[2]string{rk, ck}] = formatRatio(ratio(r))
		}
	}
	var b strings.Builder
	b.WriteString("| " + title + " |")
	for _, c := range colKeys {
		b.WriteString(" " + c + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat("---:|", len(colKeys)) + "\n")
	for _, rk := range rowKeys {
		b.WriteString("| " + rk + " |")
		for _, ck := range colKeys {
			v, ok := cells[[2]string{rk, ck}]
			if !ok {
				v = ""
			}
			b.WriteString(" " + v + " |")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// median of vs (the mean of the middle two for an even count), NaN for
// none.
func median(vs []float64) float64 {
	if len(vs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(vs)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// number formats the median of vs: whole numbers with thousands
// separators, small fractions with two decimals, "—" when there is none.
func number(vs []float64) string {
	if len(vs) == 0 {
		return "—"
	}
	m := median(vs)
	if !finite(m) {
		return "—"
	}
	if m < 100 && m != math.Trunc(m) {
		return strconv.FormatFloat(m, 'f', 2, 64)
	}
	return thousands(int64(math.Round(m)))
}

// formatRatio gives two significant digits, as the tables do: 0.36, 4.6,
// 24, 2,700.
func formatRatio(x float64) string {
	if finite(x) && x > 0 {
		// Round to two significant digits first, so that 9.96 reads 10,
		// not 10.0.
		unit := math.Pow(10, math.Floor(math.Log10(x))-1)
		x = math.Round(x/unit) * unit
	}
	switch {
	case !finite(x):
		return "—"
	case x < 1:
		return strconv.FormatFloat(x, 'f', 2, 64)
	case x < 10:
		return strconv.FormatFloat(x, 'f', 1, 64)
	}
	digits := int(math.Floor(math.Log10(x))) + 1
	unit := math.Pow(10, float64(digits-2))
	return thousands(int64(math.Round(x/unit) * unit))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
