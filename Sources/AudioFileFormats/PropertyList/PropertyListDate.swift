// The calendar arithmetic of `<date>`: ISO 8601 text in UTC ("2001-01-01T00:00:00Z", the only
// form Apple's XML writer produces and the only one Foundation's parser accepts: a date without
// the trailing "Z" is refused by both) ↔ seconds since 2001-01-01 00:00:00 UTC, the epoch binary
// plists store. Proleptic Gregorian calendar, no leap seconds (as Foundation's `Date`).

enum PropertyListDate {
    /// Days from 1970-01-01 to year-month-day (Gregorian; the civil-from-days inverse in closed form).
    static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Seconds between 1970-01-01 and 2001-01-01.
    static let epochOffset = Double(daysSince1970(year: 2001, month: 1, day: 1) * 86_400)

    /// Parses "YYYY-MM-DDTHH:MM:SSZ" (a leading "-" for years before year 0); nil when the text is
    /// not of that form or a field is out of range.
    static func parse(_ text: Substring) -> Double? {
        var s = text.utf8[...]
        var negative = false
        if s.first == UInt8(ascii: "-") { negative = true; s = s.dropFirst() }
        func digits(_ n: Int) -> Int? {
            guard s.count >= n else { return nil }
            var v = 0
            for c in s.prefix(n) {
                guard c >= 0x30, c <= 0x39 else { return nil }
                v = v * 10 + Int(c - 0x30)
            }
            s = s.dropFirst(n)
            return v
        }
        func expect(_ c: Character) -> Bool {
            guard s.first == c.asciiValue else { return false }
            s = s.dropFirst()
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2), expect("T"),
              let hour = digits(2), expect(":"), let minute = digits(2), expect(":"), let second = digits(2), expect("Z"),
              s.isEmpty else { return nil }
        guard (1...12).contains(month), (1...daysIn(month, year: negative ? -year : year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        let days = daysSince1970(year: negative ? -year : year, month: month, day: day)
        return Double(days * 86_400 + hour * 3_600 + minute * 60 + second) - epochOffset
    }

    static func daysIn(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
