package zones

import (
	"testing"
	"time"
)

func TestLoad(t *testing.T) {
	berlin, err := Load("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Load("Europe/Berlin")
	if err != nil || again != berlin {
		t.Fatalf("second load: %p %v, want the cached %p", again, err, berlin)
	}
	if _, off := time.Date(2026, 7, 1, 12, 0, 0, 0, berlin).Zone(); off != 2*3600 {
		t.Fatalf("Berlin in July is UTC%+d, want +2h", off/3600)
	}
	for _, name := range []string{"", "UTC"} {
		if l, err := Load(name); err != nil || l != time.UTC {
			t.Errorf("Load(%q) = %v, %v; want UTC", name, l, err)
		}
	}
	for _, name := range []string{"Local", "Mars/Olympus_Mons", "../../etc/passwd", "Europe/Berlin\x00"} {
		if l, err := Load(name); err == nil {
			t.Errorf("Load(%q) = %v, want an error", name, l)
		}
	}
}

func BenchmarkLoad(b *testing.B) {
	b.Run("cached", func(b *testing.B) {
		for b.Loop() {
			if _, err := Load("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("time.LoadLocation", func(b *testing.B) {
		for b.Loop() {
			if _, err := time.LoadLocation("America/New_York"); err != nil {
				b.Fatal(err)
			}
		}
	})
}
