package placement

import "slices"

// sortCands orders fastLeaf's candidates by packing score, descending,
// then by node ID; buf is scratch of the same length, returned for reuse.
// Scores come from a node's rows alone, so a domain of alike nodes (an
// empty rack; a fragmented one whose hosts keep 0–8 of 8 GPUs) has few
// distinct ones: when the candidates come in ascending ID order, as a
// domain's nodes do, and hold at most maxCandScores scores, they are
// placed by a counting sort over the distinct scores (stable, so each
// score's nodes keep ascending IDs) instead of a comparison sort that
// calls its comparator O(n log n) times. Otherwise, SortFunc.
func sortCands(cands, buf []fastCand) ([]fastCand, []fastCand) {
	// In order already (an empty rack's one score): nothing to do.
	i := 1
	for i < len(cands) && cands[i].id > cands[i-1].id && cands[i].score <= cands[i-1].score {
		i++
	}
	if i >= len(cands) {
		return cands, buf
	}
	var scores [maxCandScores]int64
	var at [maxCandScores]int // per distinct score (first-seen order): its count, then where its next candidate goes
	k, last := 0, 0
	// rank is cands[i]'s distinct score's index, the last one's first
	// (a run of alike nodes has one score).
	rank := func(sc int64) int {
		if k > 0 && scores[last] == sc {
			return last
		}
		for j := range k {
			if scores[j] == sc {
				last = j
				return j
			}
		}
		return -1
	}
	for i := range cands {
		j := rank(cands[i].score)
		if j < 0 {
			if k == maxCandScores {
				k = -1
				break
			}
			scores[k], last, j = cands[i].score, k, k
			k++
		}
		if i > 0 && cands[i].id <= cands[i-1].id {
			k = -1
			break
		}
		at[j]++
	}
	if k < 0 {
		slices.SortFunc(cands, cmpCands)
		return cands, buf
	}
	// The distinct scores descending (at most maxCandScores): each
	// score's candidates start after those of every greater score.
	var order [maxCandScores]int
	for i := range k {
		order[i] = i
		for j := i; j > 0 && scores[order[j]] > scores[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	next := 0
	for _, j := range order[:k] {
		next, at[j] = next+at[j], next
	}
	buf = grow(buf, len(cands))
	for i := range cands {
		j := rank(cands[i].score)
		buf[at[j]] = cands[i]
		at[j]++
	}
	return buf, cands
}

// maxCandScores bounds the distinct scores sortCands counts.
const maxCandScores = 16

// cmpCands orders candidates by score, descending, then by ID.
func cmpCands(x, y fastCand) int {
	if x.score != y.score {
		if x.score > y.score {
			return -1
		}
		return 1
	}
	return int(x.id - y.id)
}
