package manifest

// isDNSLabel reports whether s is a lowercase RFC 1123 label as
// k8s.io/apimachinery's validation.IsDNS1123Label accepts it: at most 63
// characters of a-z, 0-9 and '-', starting and ending with a letter or
// digit. The reader checks every object's name and namespace; this is
// that check without a regular expression.
func isDNSLabel(s string) bool { return len(s) <= 63 && isLabel(s) }

// isDNSSubdomain reports whether s is a lowercase RFC 1123 subdomain as
// validation.IsDNS1123Subdomain accepts it: at most 253 characters of
// labels (any length each) joined by '.'.
func isDNSSubdomain(s string) bool {
	if len(s) > 253 {
		return false
	}
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == '.' {
			if !isLabel(s[start:i]) {
				return false
			}
			start = i + 1
		}
	}
	return true
}

// isLabel reports whether s is one or more of a-z, 0-9 and '-', with a
// letter or digit first and last.
func isLabel(s string) bool {
	if s == "" || s[0] == '-' || s[len(s)-1] == '-' {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return false
		}
	}
	return true
}
