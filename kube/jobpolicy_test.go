package kube

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gangsched/gangsched/gang"
	"github.com/gangsched/gangsched/placement"
)

// TestLoad_JobPodGroupPolicyUnderGate: with the PodGroupPreemptionPolicy
// gate on, the PodGroup the Job controller creates gets
// spec.preemptionPolicy as the Priority admission plugin sets it (v1.37.2
// admitPodGroup): its pod template's class's, the global default class's
// when it names none, PreemptLowerPriority without either; with the gate
// off it stays unset (the API server drops the field). v1.38.0-beta.0 has
// no gate and admits as v1.37 with it on (admitPodGroup).
func TestLoad_JobPodGroupPolicyUnderGate(t *testing.T) {
	const classes = `---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: never}
value: 100
preemptionPolicy: Never
---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: lower}
value: 100
`
	const defNever = `---
apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata: {name: default-never}
value: 5
globalDefault: true
preemptionPolicy: Never
`
	job := func(class string) string {
		pc := ""
		if class != "" {
			pc = "\n      priorityClassName: " + class
		}
		return fmt.Sprintf(`---
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  parallelism: 2
  completions: 2
  template:
    spec:%s
      restartPolicy: Never
      containers: [{name: c, image: pause, resources: {requests: {cpu: "1"}}}]
`, pc)
	}
	cases := []struct {
		name, in string
		profile  gang.Profile
		gate     bool
		want     placement.PreemptionPolicy
	}{
		{"class Never, gate off", classes + job("never"), gang.ProfileV137, false, ""},
		{"class Never, gate on", classes + job("never"), gang.ProfileV137, true, placement.PreemptNever},
		{"class without policy, gate on", classes + job("lower"), gang.ProfileV137, true, placement.PreemptLowerPriority},
		{"no class, default Never, gate on", defNever + job(""), gang.ProfileV137, true, placement.PreemptNever},
		{"no class, no default, gate on", job(""), gang.ProfileV137, true, placement.PreemptLowerPriority},
		// v1.38 has no gate: admission always sets it.
		{"class Never, v1.38", classes + job("never"), gang.ProfileV138, false, placement.PreemptNever},
		{"no class, no default, v1.38", job(""), "", false, placement.PreemptLowerPriority},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cl, err := LoadWithOptions(decode(t, c.in), LoadOptions{Profile: c.profile, PodGroupPreemptionPolicy: c.gate})
			require.NoError(t, err)
			require.Len(t, cl.PodGroups, 1)
			require.Equal(t, c.want, cl.PodGroups[0].Spec.PreemptionPolicy)
		})
	}
}
