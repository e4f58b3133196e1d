package manifest

import (
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
	"pgregory.net/rapid"
)

// TestProp_NamesAsValidation: the quick name checks accept exactly the
// names package validation accepts.
func TestProp_NamesAsValidation(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.OneOf(
			rapid.StringOfN(rapid.SampledFrom([]rune("ab9-.A_é")), 0, 300, -1),
			// around a label's longest
			rapid.StringOfN(rapid.SampledFrom([]rune("az09-")), 60, 66, -1),
		).Draw(t, "s")
		if got, want := isDNSSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Fatalf("isDNSSubdomain(%q) = %v, validation says %v", s, got, want)
		}
		if got, want := isDNSLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Fatalf("isDNSLabel(%q) = %v, validation says %v", s, got, want)
		}
	})
}
