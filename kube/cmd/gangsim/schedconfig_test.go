package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// bindingsOf runs gangsim with -o json and returns pod → node of every
// binding, and stderr.
func bindingsOf(t *testing.T, wantCode int, args ...string) (map[string]string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"-o", "json"}, args...), strings.NewReader(""), &out, &errb, false)
	require.Equal(t, wantCode, code, "stderr: %s", errb.String())
	var rep Report
	require.NoError(t, json.Unmarshal(out.Bytes(), &rep))
	got := map[string]string{}
	for _, cy := range rep.Cycles {
		for _, b := range cy.Bound {
			got[b.Pod] = b.Node
		}
	}
	return got, errb.String()
}

// TestScenario_SchedulerConfigurationScoring: a gang of three 1-CPU
// members on three equal nodes packs onto n1 by default and under a
// MostAllocated profile, and spreads one per node under kube-scheduler's
// default profile, given as a configuration or by -node-scoring upstream.
func TestScenario_SchedulerConfigurationScoring(t *testing.T) {
	const dir = td + "schedconfig/"
	gang := dir + "gang-on-three-nodes.yaml"
	packed := map[string]string{"m1": "n1", "m2": "n1", "m3": "n1"}
	spread := map[string]string{"m1": "n1", "m2": "n2", "m3": "n3"}
	for _, c := range []struct {
		name string
		args []string
		want map[string]string
	}{
		{"packing by default", []string{"-f", gang}, packed},
		{"upstream flag", []string{"-node-scoring", "upstream", "-f", gang}, spread},
		{"default profile", []string{"-f", dir + "default-profile.yaml", "-f", gang}, spread},
		{"MostAllocated profile", []string{"-f", dir + "most-allocated.yaml", "-f", gang}, packed},
		{"flag over the profile", []string{"-node-scoring", "packing", "-f", dir + "default-profile.yaml", "-f", gang}, packed},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, stderr := bindingsOf(t, exitPlaced, c.args...)
			require.Equal(t, c.want, got)
			require.Empty(t, stderr)
		})
	}
}

// TestScenario_SchedulerConfigurationPerProfile: each gang is scored with
// the profile its pods name, as kube-scheduler v1.37.2 does (see the
// manifest's header): the MostAllocated profile's gang fills the fullest
// node, the default profile's takes the emptiest. -node-scoring still
// scores every group alike.
func TestScenario_SchedulerConfigurationPerProfile(t *testing.T) {
	in := td + "schedconfig/two-profiles.yaml"
	got, stderr := bindingsOf(t, exitPlaced, "-f", in)
	require.Equal(t, map[string]string{"pack-1": "n2", "pack-2": "n2", "spread-1": "n3", "spread-2": "n3"}, got)
	require.Empty(t, stderr)
	got, _ = bindingsOf(t, exitPlaced, "-node-scoring", "packing", "-f", in)
	require.Equal(t, map[string]string{"pack-1": "n2", "pack-2": "n2", "spread-1": "n1", "spread-2": "n1"}, got)
}

// TestScenario_SchedulerConfigurationNoPreemption: with DefaultPreemption
// disabled in the profile, the gang of low-priority-and-gang.yaml waits
// instead of evicting the low-priority pod, and what gangsched does not
// do is named on stderr field by field.
func TestScenario_SchedulerConfigurationNoPreemption(t *testing.T) {
	args := []string{"-f", td + "seed/nodes.yaml", "-f", td + "seed/node-d.yaml", "-f", td + "preemption/low-priority-and-gang.yaml"}
	withPreemption, _ := bindingsOf(t, exitPlaced, args...)
	require.NotEmpty(t, withPreemption)
	got, stderr := bindingsOf(t, exitWaiting, append([]string{"-f", td + "schedconfig/no-preemption.yaml"}, args...)...)
	require.Empty(t, got, "nothing binds without preemption")
	require.Equal(t, `gangsim: warning: ../../testdata/schedconfig/no-preemption.yaml: document 1 (line 3): KubeSchedulerConfiguration: extenders[0]: scheduler extenders are not called
gangsim: warning: ../../testdata/schedconfig/no-preemption.yaml: document 1 (line 3): KubeSchedulerConfiguration: profiles[0].plugins.score.enabled[0]: plugin "MyScore" has no gangsched equivalent; ignored
`, stderr)

	// A second profile that keeps DefaultPreemption: the pods name
	// default-scheduler, whose profile disables it, so they still wait,
	// and with no warning; with the other profile disabling it instead,
	// they preempt as with no configuration.
	const off = "plugins: {multiPoint: {disabled: [{name: DefaultPreemption}]}}"
	for _, c := range []struct {
		profiles string
		code     int
		want     map[string]string
	}{
		{"- " + off + "\n- schedulerName: other\n", exitWaiting, map[string]string{}},
		{"- schedulerName: default-scheduler\n- schedulerName: other\n  " + off + "\n", exitPlaced, withPreemption},
	} {
		cfg := t.TempDir() + "/two.yaml"
		writeFile(t, cfg, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n"+c.profiles)
		got, stderr = bindingsOf(t, c.code, append([]string{"-f", cfg}, args...)...)
		require.Equal(t, c.want, got, "profiles:\n%s", c.profiles)
		require.Empty(t, stderr)
	}
}

// TestScenario_SchedulerConfigurationPreemptionPerProfile: a group
// preempts when its pods' profile keeps DefaultPreemption, as
// kube-scheduler v1.37.2 decides (see the manifest's header): the
// preempter gang evicts low-a and binds, the patient gang waits beside
// low-b. -preemption=false turns it off for both.
func TestScenario_SchedulerConfigurationPreemptionPerProfile(t *testing.T) {
	in := td + "schedconfig/preemption-per-profile.yaml"
	got, stderr := bindingsOf(t, exitWaiting, "-f", in)
	require.Equal(t, map[string]string{"eager-1": "a1", "eager-2": "a1"}, got)
	require.Empty(t, stderr)
	got, _ = bindingsOf(t, exitWaiting, "-preemption=false", "-f", in)
	require.Empty(t, got)
}

// TestSchedulerConfigurationBadInput: a configuration upstream refuses
// fails the input with the field named; -node-scoring takes two values.
func TestSchedulerConfigurationBadInput(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, cfg, want string
	}{
		{"unknown strategy", "profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoringStrategy: {type: Spread}}}]}]",
			`KubeSchedulerConfiguration: profiles[0].pluginConfig: NodeScoring.Strategy: unknown strategy "Spread"`},
		{"unknown arg", "profiles: [{pluginConfig: [{name: NodeResourcesFit, args: {scoring: {}}}]}]",
			`KubeSchedulerConfiguration: profiles[0].pluginConfig[0].args: json: unknown field "scoring"`},
		{"unknown field", "profile: []", `KubeSchedulerConfiguration: profile: unknown field`},
		{"two profiles of one name", "profiles: [{schedulerName: a}, {schedulerName: a}]",
			`KubeSchedulerConfiguration: profiles[1].schedulerName: "a" is the schedulerName of profiles[0] too`},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := dir + "/" + strings.ReplaceAll(c.name, " ", "-") + ".yaml"
			writeFile(t, p, "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"+c.cfg+"\n")
			var out, errb bytes.Buffer
			require.Equal(t, exitInput, run([]string{"-f", p}, strings.NewReader(""), &out, &errb, false))
			require.Contains(t, errb.String(), c.want)
		})
	}
	var out, errb bytes.Buffer
	require.Equal(t, exitInput, run([]string{"-node-scoring", "spread", "-f", "x"}, strings.NewReader(""), &out, &errb, false))
	require.Contains(t, errb.String(), `-node-scoring "spread": want packing or upstream`)
}

func writeFile(t *testing.T, path, body string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
}
