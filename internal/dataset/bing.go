package dataset

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/freshcrawl/freshcrawl/internal/change"
)

// ErrBingSyntax is wrapped by the errors BingReader returns for malformed
// lines.
var ErrBingSyntax = errors.New("malformed Bing history line")

// BingCrawl is one entry of a Bing crawl history: a recrawl Days days after
// the URL's previous crawl, and whether the page had changed since it.
type BingCrawl struct {
	Days    float64
	Changed bool
}

// BingRecord is one line of urlid_offset_history.txt from Microsoft's
// public Bing freshness dataset (Kolobov et al., SIGIR 2019 and NeurIPS
// 2019; github.com/microsoft/Optimal-Freshness-Crawl-Scheduling):
//
//	5	5.5143055555555556	[[1.10396990740741, 0], [1.47311342592593, 1], ...]
//
// The URL id, the offset in days of the URL's first crawl from the start of
// the collection, and the recrawls, each [days since the previous crawl,
// changed 0 or 1].
type BingRecord struct {
	URLID      uint64
	FirstCrawl float64 // days from the start of the collection to the first crawl
	History    []BingCrawl
}

// AddTo adds r's history to s: each recrawl is an Observation with its
// interval in seconds and no Last-Modified, made at the crawl's time since
// the start of the collection. The first crawl only sets the baseline.
// Recrawls 0 days apart are not valid observations and Add ignores them.
func (r BingRecord) AddTo(s *change.Stats) {
	const day = 86400
	at := r.FirstCrawl
	for _, c := range r.History {
		at += c.Days
		s.Add(change.Observation{Interval: c.Days * day, Changed: c.Changed, SinceModified: -1}, at*day)
	}
}

// defaultMaxBingLine bounds the length of one line: 64 MiB is over two
// million recrawls, far beyond 14 weeks of even hourly crawling.
const defaultMaxBingLine = 64 << 20

// BingReader streams BingRecords from urlid_offset_history.txt. Fields are
// separated by tabs or spaces; whitespace inside the history list is free;
// blank lines are skipped; anything else that is not a decimal URL id, a
// non-negative finite offset and a list of [non-negative finite days, 0 or
// 1] pairs is an error that names the line. It reads line by line with no
// regular expressions and no allocation per line (BenchmarkBingReader).
type BingReader struct {
	br      *bufio.Reader
	line    int
	long    []byte // a line longer than br's buffer
	hist    []BingCrawl
	maxLine int
}

// NewBingReader returns a reader of r.
func NewBingReader(r io.Reader) *BingReader {
	return &BingReader{br: bufio.NewReaderSize(r, 1<<16), maxLine: defaultMaxBingLine}
}

// errLongLine reports a line longer than maxLine.
var errLongLine = errors.New("line too long")

// Next returns the next record, or io.EOF after the last. The record's
// History is reused by the next call to Next; copy it to keep it. A syntax
// error wraps ErrBingSyntax and names the line and byte; after it the reader
// goes on with the next line.
func (b *BingReader) Next() (BingRecord, error) {
	for {
		line, err := b.readLine()
		switch {
		case err == io.EOF:
			return BingRecord{}, io.EOF
		case err == errLongLine:
			b.line++
			return BingRecord{}, fmt.Errorf("bing line %d: longer than %d bytes: %w", b.line, b.maxLine, ErrBingSyntax)
		case err != nil:
			return BingRecord{}, fmt.Errorf("bing line %d: %w", b.line+1, err)
		}
		b.line++
		p := bingParser{b: line}
		p.space()
		if p.i == len(p.b) {
			continue // a blank line
		}
		rec, ok := p.record(b.hist[:0])
		if !ok {
			return BingRecord{}, fmt.Errorf("bing line %d, byte %d: %s: %w", b.line, p.i+1, p.msg, ErrBingSyntax)
		}
		b.hist = rec.History
		return rec, nil
	}
}

// Line returns the number of the line Next last read, counting from 1.
func (b *BingReader) Line() int { return b.line }

// readLine returns the next line without its newline, or io.EOF.
func (b *BingReader) readLine() ([]byte, error) {
	line, err := b.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		b.long = append(b.long[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(b.long) > b.maxLine {
				// Skip the rest so that Next resumes on the next line.
				for err == bufio.ErrBufferFull {
					_, err = b.br.ReadSlice('\n')
				}
				return nil, errLongLine
			}
			line, err = b.br.ReadSlice('\n')
			b.long = append(b.long, line...)
		}
		line = b.long
	}
	switch {
	case err == io.EOF && len(line) > 0:
		return line, nil // the last line has no newline
	case err != nil:
		return nil, err
	case len(line) > b.maxLine:
		return nil, errLongLine
	}
	return line[:len(line)-1], nil
}

// bingParser scans one line; msg says what was wrong when a method fails.
type bingParser struct {
	b   []byte
	i   int
	msg string
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' }

func isNumberChar(c byte) bool {
	return '0' <= c && c <= '9' || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E'
}

// space skips whitespace and reports whether there was any.
func (p *bingParser) space() bool {
	start := p.i
	for p.i < len(p.b) && isSpace(p.b[p.i]) {
		p.i++
	}
	return p.i > start
}

// record parses a whole line, appending the history to hist.
func (p *bingParser) record(hist []BingCrawl) (BingRecord, bool) {
	var r BingRecord
	var ok bool
	if r.URLID, ok = p.id(); !ok {
		return r, false
	}
	if !p.space() {
		return r, p.fail("want whitespace after the URL id")
	}
	if r.FirstCrawl, ok = p.days("first-crawl offset"); !ok {
		return r, false
	}
	if !p.space() {
		return r, p.fail("want whitespace after the first-crawl offset")
	}
	if !p.expect('[', "want '[' to open the history") {
		return r, false
	}
	p.space()
	if p.peek() == ']' {
		p.i++
	} else {
		for {
			c, ok := p.crawl()
			if !ok {
				return r, false
			}
			hist = append(hist, c)
			p.space()
			if p.peek() == ',' {
				p.i++
				p.space()
				continue
			}
			if !p.expect(']', "want ',' or ']' after a history entry") {
				return r, false
			}
			break
		}
	}
	p.space()
	if p.i != len(p.b) {
		return r, p.fail("trailing characters after the history")
	}
	r.History = hist
	return r, true
}

// crawl parses one [days, changed] pair.
func (p *bingParser) crawl() (BingCrawl, bool) {
	var c BingCrawl
	var ok bool
	if !p.expect('[', "want '[' to open a history entry") {
		return c, false
	}
	p.space()
	if c.Days, ok = p.days("days since the previous crawl"); !ok {
		return c, false
	}
	p.space()
	if !p.expect(',', "want ',' between days and the change flag") {
		return c, false
	}
	p.space()
	switch tok := p.token(); string(tok) {
	case "0":
	case "1":
		c.Changed = true
	case "":
		return c, p.fail("want the change flag, 0 or 1")
	default:
		return c, p.fail("change flag is not 0 or 1")
	}
	p.space()
	return c, p.expect(']', "want ']' to close a history entry")
}

// id parses a decimal URL id.
func (p *bingParser) id() (uint64, bool) {
	start := p.i
	var v uint64
	for p.i < len(p.b) && '0' <= p.b[p.i] && p.b[p.i] <= '9' {
		d := uint64(p.b[p.i] - '0')
		if v > (math.MaxUint64-d)/10 {
			p.i = start
			return 0, p.fail("URL id overflows 64 bits")
		}
		v = v*10 + d
		p.i++
	}
	if p.i == start {
		return 0, p.fail("want a decimal URL id")
	}
	return v, true
}

// days parses a non-negative finite decimal number of days: by scanFloat
// when it applies to the whole run of number characters, else by
// strconv.ParseFloat.
func (p *bingParser) days(what string) (float64, bool) {
	if v, n, ok := scanFloat(p.b[p.i:]); ok && (p.i+n == len(p.b) || !isNumberChar(p.b[p.i+n])) {
		p.i += n
		return v, true
	}
	start := p.i
	tok := p.token()
	if len(tok) == 0 {
		return 0, p.fail("want a number: " + what)
	}
	// The token holds only digits, signs, '.', 'e' and 'E', so ParseFloat
	// never sees "inf", "nan", hex or underscores.
	v, err := strconv.ParseFloat(string(tok), 64)
	if err != nil || v < 0 || math.IsInf(v, 0) {
		p.i = start
		return 0, p.fail("not a non-negative finite number: " + what)
	}
	return v + 0, true // + 0 turns −0 into 0
}

// token consumes the longest run of number characters.
func (p *bingParser) token() []byte {
	start := p.i
	for p.i < len(p.b) && isNumberChar(p.b[p.i]) {
		p.i++
	}
	return p.b[start:p.i]
}

func (p *bingParser) peek() byte {
	if p.i < len(p.b) {
		return p.b[p.i]
	}
	return 0
}

func (p *bingParser) expect(c byte, msg string) bool {
	if p.peek() != c {
		return p.fail(msg)
	}
	p.i++
	return true
}

func (p *bingParser) fail(msg string) bool {
	if p.i >= len(p.b) {
		msg = "the line ends early (truncated?): " + msg
	}
	p.msg = msg
	return false
}
