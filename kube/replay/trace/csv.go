package trace

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gangsched/gangsched/kube/replay"
	"github.com/gangsched/gangsched/placement"
)

// ErrFormat is wrapped by every error about a trace's contents.
var ErrFormat = errors.New("trace: bad format")

// table reads a CSV table whose columns are named by its header line (or
// by want when the file has none), checking that every wanted column is
// there.
type table struct {
	name string // the file, for errors
	r    *csv.Reader
	col  map[string]int
	row  []string
	line int
}

func newTable(name string, r io.Reader, want []string, header bool) (*table, error) {
	t := &table{name: name, r: csv.NewReader(r), col: map[string]int{}}
	t.r.ReuseRecord = true
	t.r.FieldsPerRecord = -1
	names := want
	if header {
		h, err := t.r.Read()
		if err != nil {
			return nil, fmt.Errorf("%s: reading the header: %w: %v", name, ErrFormat, err)
		}
		names = slices.Clone(h)
	}
	for i, n := range names {
		t.col[strings.TrimSpace(n)] = i
	}
	for _, w := range want {
		if _, ok := t.col[w]; !ok {
			return nil, fmt.Errorf("%s: %w: no column %q (want %s)", name, ErrFormat, w, strings.Join(want, ","))
		}
	}
	return t, nil
}

// each calls row for every row of the table, stopping at the first error.
func (t *table) each(row func() error) error {
	for {
		ok, err := t.next()
		if !ok || err != nil {
			return err
		}
		if err := row(); err != nil {
			return err
		}
	}
}

// column maps a table column to a resource: the column's value times scale.
type column struct {
	name  string
	res   placement.ResourceName
	scale float64
}

// columns reads each of cols from the row into rl, leaving out zeros.
func (t *table) columns(rl placement.ResourceList, cols ...column) error {
	for _, c := range cols {
		v, _, err := t.num(c.name, c.scale, false)
		if err != nil {
			return err
		}
		if v > 0 {
			rl[c.res] = v
		}
	}
	return nil
}

// lifetime reads a pod's creation_time, scheduled_time and deletion_time
// columns (seconds after [Epoch]) into p: it is queued at its creation and
// runs for deletion − scheduled (at least a second), a blank scheduled time
// meaning its creation. With optional, a blank creation time is 0 and a
// blank deletion time leaves p.Duration alone. It returns the creation time.
func (t *table) lifetime(p *replay.Pod, optional bool) (created int64, err error) {
	created, _, err = t.num("creation_time", 1, optional)
	if err != nil {
		return 0, err
	}
	scheduled, ok, err := t.num("scheduled_time", 1, true)
	if err != nil {
		return 0, err
	}
	if !ok {
		scheduled = created
	}
	deleted, ok, err := t.num("deletion_time", 1, optional)
	if err != nil {
		return 0, err
	}
	if ok {
		p.Duration = time.Duration(max(1, deleted-scheduled)) * time.Second
	}
	p.QueuedAt = Epoch.Add(time.Duration(created) * time.Second)
	return created, nil
}

// next reads the next row; false at the end.
func (t *table) next() (bool, error) {
	row, err := t.r.Read()
	if err == io.EOF {
		return false, nil
	}
	if err != nil { // a csv.ParseError, which names the line
		return false, fmt.Errorf("%s: %w: %v", t.name, ErrFormat, err)
	}
	t.line, _ = t.r.FieldPos(0) // only valid after a successful Read
	t.row = row
	return true, nil
}

// str returns column c of the row.
func (t *table) str(c string) string {
	i := t.col[c]
	if i >= len(t.row) {
		return ""
	}
	return strings.TrimSpace(t.row[i])
}

func (t *table) errorf(c, format string, args ...any) error {
	return fmt.Errorf("%s: line %d: column %s: %w: %s", t.name, t.line, c, ErrFormat, fmt.Sprintf(format, args...))
}

// num reads column c as a number of at least 0, scaled by scale and
// rounded to an integer; blank or NaN is missing (ok false) when optional.
func (t *table) num(c string, scale float64, optional bool) (v int64, ok bool, err error) {
	s := t.str(c)
	if optional && (s == "" || strings.EqualFold(s, "nan")) {
		return 0, false, nil
	}
	f, perr := strconv.ParseFloat(s, 64)
	switch {
	case perr != nil || math.IsNaN(f) || math.IsInf(f, 0):
		return 0, false, t.errorf(c, "%q is not a number", s)
	case f < 0:
		return 0, false, t.errorf(c, "%s is negative", s)
	case f*scale >= math.MaxInt64/2:
		return 0, false, t.errorf(c, "%s is too large", s)
	}
	return int64(math.Round(f * scale)), true, nil
}
