package approval

import "io"

// A terminal answers some of what is written to it by typing into its own
// input: a report of a mode (DECRQM's reply "ESC [ 4 ; 2 $ y"), of the
// cursor, of the window title a program set, or its answerback string
// ("PuTTY" after an ENQ). A sandboxed command writes to the same terminal
// as the prompt, and such a reply can arrive after the prompt flushed the
// typeahead (a terminal over ssh answers late), so it would answer the
// prompt in the person's place: "ESC [ 4 ; 2 $ y" holds six keys the
// prompt skips and then "y". A key therefore counts as an answer only
// when it arrives on its own, in a read of one byte, outside any escape
// sequence: a person's key press does, a reply (an escape sequence, or
// several bytes at once) does not, nor does a paste.

// input is one read from the terminal, as the prompt judges it.
type input struct {
	// key is the read's byte when it can be a person's answer: one byte
	// on its own, outside an escape sequence; 0 otherwise.
	key byte
	// interrupt says the read holds Ctrl-C or Ctrl-D: a denial, wherever
	// it comes from (denying is never the command's gain).
	interrupt bool
}

// keyReader reads a person's key presses from a terminal in raw mode,
// telling them from what the terminal types by itself (see above).
type keyReader struct {
	r   io.Reader
	esc escParser
	buf [256]byte
}

// next reads once and judges what was read. An error (EOF, a hang-up, a
// deadline) is returned as the read returned it, with what it read.
func (k *keyReader) next() (input, error) {
	n, err := k.r.Read(k.buf[:])
	if n == 0 {
		if err == nil {
			err = io.EOF
		}
		return input{}, err
	}
	var in input
	inSequence := false
	for _, b := range k.buf[:n] {
		if k.esc.feed(b) {
			inSequence = true
		}
		if b == 0x03 || b == 0x04 {
			in.interrupt = true
		}
	}
	if n == 1 && !inSequence {
		in.key = k.buf[0]
	}
	return in, err
}

// escState is where an escParser is in ECMA-48's grammar.
type escState int

const (
	escGround    escState = iota // not in a sequence
	escStart                     // after ESC
	escInter                     // ESC with intermediate bytes, before the final one
	escCSI                       // ESC [ (a control sequence), before its final byte
	escOne                       // ESC O or ESC N: one more byte ends it
	escString                    // ESC P, ], X, ^ or _ (a string), before its terminator
	escStringEsc                 // ESC inside a string: ESC \ ends it
)

// escParser follows the escape sequences in a terminal's input across
// reads, so that a reply split over two reads is still one sequence.
type escParser struct{ state escState }

// feed takes the next byte and reports whether it belongs to an escape
// sequence (ESC itself included). A string that never ends keeps every
// later byte in it: the prompt then takes no answer, which denies.
func (p *escParser) feed(b byte) bool {
	switch p.state {
	case escGround:
		if b == 0x1b {
			p.state = escStart
			return true
		}
		return false
	case escStart:
		p.start(b)
	case escInter:
		if b < 0x20 || b > 0x2f {
			p.state = escGround
		}
	case escCSI:
		if b == 0x1b {
			p.state = escStart
		} else if b >= 0x40 && b <= 0x7e {
			p.state = escGround
		}
	case escOne:
		p.state = escGround
	case escString:
		if b == 0x07 {
			p.state = escGround // BEL ends an OSC, as xterm answers
		} else if b == 0x1b {
			p.state = escStringEsc
		}
	case escStringEsc:
		if b == '\\' {
			p.state = escGround
		} else {
			p.state = escStart
			p.start(b)
		}
	}
	return true
}

// start takes the byte after an ESC.
func (p *escParser) start(b byte) {
	switch {
	case b == '[':
		p.state = escCSI
	case b == 'P' || b == ']' || b == 'X' || b == '^' || b == '_':
		p.state = escString
	case b == 'O' || b == 'N':
		p.state = escOne
	case b == 0x1b:
		p.state = escStart
	case b >= 0x20 && b <= 0x2f:
		p.state = escInter
	default:
		// A final byte (ESC c, Meta-y) or a control: the sequence ends.
		p.state = escGround
	}
}
