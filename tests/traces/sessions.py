# SPDX-License-Identifier: GPL-2.0-or-later
"""The committed recordings in tests/traces/: how each card, image and cxflash session is
made. scripts/make-test-traces (make test-traces) records them from cxsim; test_trace.py
replays them. A change here or in cxflash's register sequence needs the traces made again."""

SMALL = ["--ddr", "2", "--ddr-size", "0x1000"]
GUID, MAC = "0002c90300c0ffe0", "0002c9c0ffe0"
PART = "W25Q80"   # 1 MiB, the smallest part cxsim has

IMAGES = {   # mkfs2 options; the output is old.bin, new.bin (mkfs2 is deterministic)
    "old": ["--chip", "cx3", *SMALL, "--fw", "2.40.7000"],
    "new": ["--chip", "cx3", *SMALL, "--fw", "2.42.5000", "--seed", "4"],
}

CARDS = {    # cxsim create options (a card's image by its file name)
    "card": ["--chip", "cx3", "--flash", PART, "--image", "old.bin", "--guid", GUID, "--mac", MAC],
    "livefish": ["--chip", "cx3", "--flash", PART, "--empty"],
}

# name: (card, cxflash arguments after -d BDF). Each session starts from a new card.
SESSIONS = {
    "q": ("card", ["q"]),
    "v": ("card", ["v"]),
    "burn": ("card", ["-i", "new.bin", "-y", "--no-backup", "burn"]),
    "sg": ("card", ["-y", "--no-backup", "sg", "--guid", "0002c90300c0ff00", "--mac", "0002c9c0ff00"]),
    "recovery-burn": ("livefish", ["-i", "new.bin", "-y", "--no-backup", "--guid", "0002c90300001230",
                                   "--mac", "0002c9001230", "burn"]),
}
