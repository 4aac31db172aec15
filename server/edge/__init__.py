"""The network edge: sockets counted from accept (`gate`), one client's connection and bounded
send (`connection`), the HTTP side of the port (`http`, its route table `routes`, `http_guard`, `refusals`; the browser's
files in `web`, probes in `probes`), and a connection's messages dispatched to the rooms
(`session`); and the address others reach this machine at (`address`)."""
