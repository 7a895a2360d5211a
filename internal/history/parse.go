package history

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The dataset format, one record a line, LF-terminated:
//
//	# name: value                          a header line (source, site, pages, keying, end, format)
//	KEY<TAB>T T dT T ...                   a page: its URL path, then its events
//
// Events are separated by single spaces, in strictly increasing time; T is
// a plain event (unix seconds: from then on a new version exists), dT a
// deletion (from then on the page does not exist). A line starts with a
// plain event, and a deletion follows a plain one. Keys are sorted (byte
// order) and appear once. The "end:" header is the unix time of the end of
// the observation window.

// Parse reads a history in the dataset format. An error names the line
// and what is wrong with it, in one line.
func Parse(r io.Reader) (*History, error) {
	h := &History{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	line := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		var err error
		if strings.HasPrefix(text, "#") {
			err = h.parseHeader(text)
		} else {
			err = h.parsePage(text)
		}
		if err != nil {
			return nil, fmt.Errorf("history: line %d: %w", line, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history: line %d: %w", line+1, err)
	}
	return h, nil
}

// parseHeader reads "# name: value"; a comment without a name is kept
// whole as a value.
func (h *History) parseHeader(text string) error {
	text = strings.TrimSpace(strings.TrimPrefix(text, "#"))
	name, value, ok := strings.Cut(text, ":")
	if !ok || strings.ContainsAny(name, " \t") {
		h.Headers = append(h.Headers, Header{Value: text})
		return nil
	}
	value = strings.TrimSpace(value)
	h.Headers = append(h.Headers, Header{Name: name, Value: value})
	if name == "end" {
		end, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			return fmt.Errorf("end: want unix seconds, got %q", value)
		}
		h.End = end
	}
	return nil
}

// parsePage reads one page line and appends the page.
func (h *History) parsePage(text string) error {
	key, events, ok := strings.Cut(text, "\t")
	if !ok || !strings.HasPrefix(key, "/") || strings.ContainsAny(key, " \t\r") {
		return fmt.Errorf("want KEY<TAB>events with a key starting with /, got %.40q", text)
	}
	if n := len(h.Pages); n > 0 && h.Pages[n-1].Key >= key {
		if h.Pages[n-1].Key == key {
			return fmt.Errorf("key %s appears again", key)
		}
		return fmt.Errorf("key %s after %s: keys are not sorted", key, h.Pages[n-1].Key)
	}
	fields := strings.Split(events, " ")
	p := Page{Key: key, Events: make([]Event, 0, len(fields))}
	for i, f := range fields {
		e := Event{}
		if rest, ok := strings.CutPrefix(f, "d"); ok {
			e.Deleted, f = true, rest
		}
		t, err := strconv.ParseInt(f, 10, 64)
		if err != nil || f == "" || f[0] == '+' || f[0] == '-' {
			return fmt.Errorf("%s: event %d: want T or dT (unix seconds), got %q", key, i+1, fields[i])
		}
		e.Time = t
		p.Events = append(p.Events, e)
	}
	if err := checkEvents(p.Events); err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	p.index()
	h.Pages = append(h.Pages, p)
	return nil
}
