package kube

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/placement"
)

// kueueJobRecord is one Job run through Kueue v0.17.0's own Job
// integration (testdata/kueue-jobs/README.md): the Workload it built, or
// why it refused the Job.
type kueueJobRecord struct {
	World    int             `json:"world"`
	Job      *batchv1.Job    `json:"job"`
	Workload *kueue.Workload `json:"workload"`
	Error    string          `json:"error"`
}

// TestKueueJobOracle checks KueueJobWorkload against Kueue's own code: for
// each recorded Job, gangsim builds the same Workload (name, labels,
// annotations, owner, finalizer, queue, pod set with its count, minCount,
// template and topologyRequest, priority and its class reference) or
// refuses the Job Kueue refused, naming the field Kueue's webhook names.
func TestKueueJobOracle(t *testing.T) {
	f, err := os.Open("testdata/kueue-jobs/oracle.jsonl")
	require.NoError(t, err)
	defer f.Close()
	classes := []schedulingv1.PriorityClass{{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, {ObjectMeta: metav1.ObjectMeta{Name: "low"}, Value: 10}}
	var worlds [2]*PriorityClasses
	worlds[0], err = NewPriorityClasses(classes)
	require.NoError(t, err)
	worlds[1], err = NewPriorityClasses(append(classes, schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "def"}, Value: 7, GlobalDefault: true}))
	require.NoError(t, err)
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	n, refused := 0, 0
	for sc.Scan() {
		var rec kueueJobRecord
		require.NoError(t, json.Unmarshal(sc.Bytes(), &rec))
		n++
		got, err := KueueJobWorkload(rec.Job, KueueJobOptions{PriorityClasses: worlds[rec.World], WorkloadPriorityClasses: map[string]int32{"wpc-a": 500}})
		name := rec.Job.Name
		if rec.Error != "" {
			refused++
			require.Error(t, err, "Job %s: Kueue refused it: %s", name, rec.Error)
			var fe *placement.FieldError
			require.True(t, errors.As(err, &fe), "Job %s: %v", name, err)
			if field, ok := strings.CutPrefix(rec.Error, "webhook: "); ok {
				field, _, _ = strings.Cut(field, ": ")
				require.Equal(t, field, fe.Field, "Job %s: Kueue: %s; gangsim: %v", name, rec.Error, err)
			}
			continue
		}
		require.NoError(t, err, "Job %s", name)
		// gangsim reads back the Workload it built, but for its own rule
		// that partial admission keeps whole slices, and a template naming
		// a PriorityClass the input lacks beside a WorkloadPriorityClass
		// (Kueue builds the Workload; the API server would refuse its pods).
		if _, err := ConvertKueueWorkload(got, worlds[rec.World]); err != nil {
			msg := err.Error()
			require.True(t, strings.Contains(msg, "gangsim admits whole slices") || strings.Contains(msg, "no PriorityClass"), "Job %s: gangsim reads back the Workload it built: %v", name, err)
		}
		got.TypeMeta, got.CreationTimestamp = metav1.TypeMeta{}, metav1.Time{}
		want, err := json.Marshal(rec.Workload)
		require.NoError(t, err)
		have, err := json.Marshal(got)
		require.NoError(t, err)
		require.JSONEq(t, string(want), string(have), "Job %s", name)
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 100)
	require.Greater(t, refused, 10)
}
