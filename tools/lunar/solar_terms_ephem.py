#!/usr/bin/env python3
"""Prints the local dates (UTC+8, China Standard Time) of the solar terms 清明 (the Sun's
apparent geocentric ecliptic longitude reaches 15°) and 冬至 (270°) for 1900–2100, computed
with PyEphem (`pip install ephem==4.2.1`), as the two digit strings that
src/temporal/lunar.rs embeds (清明: day of April − 3; 冬至: day of December − 20).

The instant is found by bisection on the apparent longitude (ephem.Sun's apparent geocentric
place g_ra/g_dec, as ecliptic longitude of date); the date is the one in UTC+8 (the convention of Chinese calendars, GB/T 33661-2017)."""
import ephem, math, datetime

def lon(t):
    # Apparent geocentric place of date (nutation and aberration included: g_ra/g_dec), turned
    # into ecliptic longitude of date.
    s = ephem.Sun(ephem.Date(t))
    eq = ephem.Equatorial(s.g_ra, s.g_dec, epoch=ephem.Date(t))
    return float(ephem.Ecliptic(eq, epoch=ephem.Date(t)).lon)

def crossing(year, month, day, target_deg):
    target = math.radians(target_deg)
    a = ephem.Date(datetime.datetime(year, month, day - 3))
    b = ephem.Date(datetime.datetime(year, month, day + 3))
    def f(t):
        d = lon(t) - target
        return (d + math.pi) % (2 * math.pi) - math.pi
    fa = f(a)
    for _ in range(60):
        m = (a + b) / 2
        fm = f(m)
        if (fa < 0) == (fm < 0):
            a, fa = m, fm
        else:
            b = m
    utc = ephem.Date((a + b) / 2).datetime()
    return (utc + datetime.timedelta(hours=8)).date()

if __name__ == "__main__":
    q, w = [], []
    for y in range(1900, 2101):
        dq = crossing(y, 4, 5, 15)
        dw = crossing(y, 12, 22, 270)
        assert dq.month == 4 and 4 <= dq.day <= 6 and dw.month == 12 and 21 <= dw.day <= 23, (y, dq, dw)
        q.append(str(dq.day - 3))
        w.append(str(dw.day - 20))
    print("QINGMING", "".join(q))
    print("DONGZHI", "".join(w))
