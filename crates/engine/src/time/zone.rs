//! Wall-clock times in a time zone: the wall clock an instant shows, and
//! the instant a local time names, with daylight-saving gaps and overlaps
//! resolved as Java resolves them.

use chrono::{Offset, TimeZone};

/// The instant of a wall-clock time in `tz`. In a daylight-saving gap the
/// time moves forward by the gap and in an overlap the earlier instant
/// wins, as Java resolves local times.
pub(crate) fn local_to_instant(wall_ms: i64, tz: chrono_tz::Tz) -> Option<i64> {
    let naive = chrono::DateTime::from_timestamp_millis(wall_ms)?.naive_utc();
    let offset_secs = match tz.from_local_datetime(&naive).earliest() {
        Some(dt) => dt.offset().fix().local_minus_utc(),
        None => {
            let before = naive.checked_sub_signed(chrono::TimeDelta::days(1))?;
            tz.offset_from_utc_datetime(&before).fix().local_minus_utc()
        }
    };
    wall_ms.checked_sub(i64::from(offset_secs) * 1000)
}

/// The wall-clock time in `tz` of an instant, as epoch milliseconds of a
/// zone-less timestamp; None past chrono's range.
pub(crate) fn to_wall_clock(instant_ms: i64, tz: chrono_tz::Tz) -> Option<i64> {
    let utc = chrono::DateTime::from_timestamp_millis(instant_ms)?.naive_utc();
    let offset_secs = tz.offset_from_utc_datetime(&utc).fix().local_minus_utc();
    instant_ms.checked_add(i64::from(offset_secs) * 1000)
}
