// The seats this device holds, kept in localStorage: room code -> {token, seat, seq, doc...},
// and the room a /r/CODE link names.

const SEATS_KEY = "allfives.seats";

/** The saved seats: room code -> {token, seat, seq}. */
export function savedSeats() {
  try {
    const seats = JSON.parse(localStorage.getItem(SEATS_KEY) ?? "{}");
    return seats && typeof seats === "object" ? seats : {};
  } catch {
    return {};
  }
}

/** Keep (or with null, forget) a room's seat. With `doc` and `seq` the room's document is kept
 *  too, for one room at a time: a reload then resumes from that seq and gets only the patches
 *  it missed. */
export function saveSeat(room, entry) {
  const seats = savedSeats();
  if (entry?.doc) {
    for (const other of Object.values(seats)) {
      delete other.doc;
      delete other.seq;
    }
  }
  if (entry) seats[room] = entry;
  else delete seats[room];
  try {
    localStorage.setItem(SEATS_KEY, JSON.stringify(seats));
  } catch {
    // storage full or off: the seat lasts as long as this page
  }
}

/** The room a /r/CODE link names (upper case), or null. */
export function linkedRoom() {
  const match = /^\/r\/([A-Za-z0-9-]{1,24})\/?$/.exec(location.pathname);
  return match ? match[1].toUpperCase() : null;
}
