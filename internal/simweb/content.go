package simweb

// This file holds a page incarnation's topic and title; the words they are
// made of are package words's.

import (
	"strings"

	"github.com/freshcrawl/freshcrawl/internal/simweb/words"
	"github.com/freshcrawl/freshcrawl/internal/splitmix"
)

// pageTopic returns the topic of a page incarnation: its directory's topic
// four times in five, otherwise any topic.
func (w *Web) pageTopic(si, slot int32, key uint64) int {
	s := &w.sites[si]
	c := s.clusterOf(slot)
	r := splitmix.NewStream(key ^ tagTopic)
	if c >= 0 && r.Float64() < 0.8 {
		return s.clusters[c].topic
	}
	return words.DrawTopic(r.Float64())
}

// appendTitle appends the title of a page incarnation.
func (w *Web) appendTitle(dst []byte, si, slot int32, key uint64) []byte {
	s := &w.sites[si]
	topic := words.Topics[w.pageTopic(si, slot, key)]
	r := splitmix.NewStream(key ^ tagTopic ^ 0x55)
	switch {
	case slot == 0:
		dst = append(dst, strings.ToUpper(s.name[:1])...)
		dst = append(dst, s.name[1:len(s.name)-len(Zone)-1]...)
		return append(dst, " home"...)
	case s.clusters[s.clusterOf(slot)].start == slot:
		dst = append(dst, strings.ToUpper(topic[:1])...)
		dst = append(dst, topic[1:]...)
		return append(dst, " index"...)
	}
	n := 2 + r.IntN(4)
	withTopic := r.Float64() < 0.35
	at := r.IntN(n)
	for i := 0; i < n; i++ {
		if i > 0 {
			dst = append(dst, ' ')
		}
		if withTopic && i == at {
			dst = append(dst, topic...)
			continue
		}
		word := words.Filler[r.IntN(len(words.Filler))]
		if i == 0 {
			dst = append(dst, word[0]-('a'-'A'))
			dst = append(dst, word[1:]...)
		} else {
			dst = append(dst, word...)
		}
	}
	return dst
}
