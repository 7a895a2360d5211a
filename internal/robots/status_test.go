package robots

import "testing"

// TestFromResponse checks the status-code semantics of RFC 9309 §2.3.1:
// 2xx parse (§2.3.1.1), 3xx past the redirect limit and 4xx allow all
// (§2.3.1.2, §2.3.1.3), 5xx and network errors disallow all (§2.3.1.4).
// 429 is read as unreachable, as Google reads it (developers.google.com,
// "Handling of errors and HTTP status codes").
func TestFromResponse(t *testing.T) {
	body := []byte("User-agent: *\nDisallow: /private\n")
	tests := []struct {
		name   string
		status int
		want   Availability
		// What a crawler may fetch after that answer.
		private, public bool
	}{
		{"200 parses", 200, Available, false, true},
		{"203 parses", 203, Available, false, true},
		{"redirects ran out", 301, Unavailable, true, true},
		{"308 ran out", 308, Unavailable, true, true},
		{"400", 400, Unavailable, true, true},
		{"401 is unavailable", 401, Unavailable, true, true},
		{"403 is unavailable", 403, Unavailable, true, true},
		{"404", 404, Unavailable, true, true},
		{"410", 410, Unavailable, true, true},
		{"429 is unreachable", 429, Unreachable, false, false},
		{"304 without a copy is unreachable", 304, Unreachable, false, false},
		{"500", 500, Unreachable, false, false},
		{"503", 503, Unreachable, false, false},
		{"599", 599, Unreachable, false, false},
		{"network error", 0, Unreachable, false, false},
		{"1xx is no answer", 100, Unreachable, false, false},
		{"out of range", 600, Unreachable, false, false},
		{"negative", -1, Unreachable, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Classify(tt.status); got != tt.want {
				t.Errorf("Classify(%d) = %v, want %v", tt.status, got, tt.want)
			}
			g := FromResponse(tt.status, body).Group("freshcrawl/0.1")
			if got := g.Allowed("/private"); got != tt.private {
				t.Errorf("/private allowed %v, want %v", got, tt.private)
			}
			if got := g.Allowed("/public"); got != tt.public {
				t.Errorf("/public allowed %v, want %v", got, tt.public)
			}
			if !g.Allowed("/robots.txt") {
				t.Error("/robots.txt disallowed")
			}
		})
	}
}

func TestDisallowAll(t *testing.T) {
	g := DisallowAll().Group("anybot")
	for _, p := range []string{"/", "", "?q", "/a/b?c", "/%2F", "*"} {
		if g.Allowed(p) {
			t.Errorf("DisallowAll allows %q", p)
		}
	}
	if !g.Allowed("/robots.txt") {
		t.Error("DisallowAll disallows /robots.txt")
	}
}

func TestAvailabilityString(t *testing.T) {
	for a, want := range map[Availability]string{Available: "available", Unavailable: "unavailable", Unreachable: "unreachable", 7: "Availability(7)"} {
		if got := a.String(); got != want {
			t.Errorf("%d: %q, want %q", int(a), got, want)
		}
	}
}
