package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	goldenfile "github.com/gangsched/gangsched/internal/golden"
)

// TestGoldenFGDExperiment: the experiment's table on a small made-up
// cluster in openb's format (testdata/fgd: 9 GPUs of three models and a
// CPU node; 8 pods, shares, whole GPUs, model constraints), two seeds.
func TestGoldenFGDExperiment(t *testing.T) {
	var out, errb bytes.Buffer
	code := run([]string{"-trace", "openb=" + filepath.Join("testdata", "fgd"), "-fgd-experiment", "-fgd-seeds", "2"}, strings.NewReader(""), &out, &errb, false)
	require.Equal(t, exitPlaced, code, errb.String())
	goldenfile.Check(t, filepath.Join("testdata", "fgd-experiment.golden"), out.Bytes())
}

func TestFGDExperimentBadFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-fgd-experiment"}, "-fgd-experiment replays a trace: give -trace openb=DIR"},
		{[]string{"-fgd-experiment", "-fgd-seeds", "0", "-trace", "openb=x"}, "-fgd-seeds 0: want 1 or more"},
		{[]string{"-fgd-experiment", "-trace", "day=2x2"}, "-fgd-experiment: inflate: the cluster has no"},
	} {
		var out, errb bytes.Buffer
		require.Equal(t, exitInput, run(c.args, strings.NewReader(""), &out, &errb, false), c.args)
		require.Contains(t, errb.String(), c.want, c.args)
	}
}
