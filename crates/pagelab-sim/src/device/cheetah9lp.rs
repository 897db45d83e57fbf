//! The Seagate ST39102LW (Cheetah 9LP) as DiskSim 4.0 models it, embedded so that the binary needs no
//! parameter files at run time.
//!
//! Provenance: `SEAGATE_ST39102LW_validate` in nmsudatalab/disksim-4.0, `build/disksim-4.0/valid/`:
//! `cheetah9LP.model` (geometry, zones, skews, slips, mechanics), `cheetah9LP.diskspecs` (controller
//! overheads, on-board cache) and `cheetah9LP.seek` (extracted seek curve). The repository ships the three
//! files unmodified in `data/reference/disksim/`; the tests below parse them and check that every value
//! here equals its source.
//!
//! Three settings are pagelab's, not DiskSim's:
//! - The bus. DiskSim's "Bulk sector transfer time = 0.105" is in milliseconds per 512-byte sector
//!   (`disk.modspec`: "the time for the disk to transfer a single 512-byte block over the bus"; the
//!   largest of the disk's, the bus's and the controller's values is used). It is the host path of the
//!   validation rig, not the drive: in the validation trace, reads that continue the previous read
//!   (cache hits) take 0.066 ms + 0.1025 ms per sector (medians: 4 sectors 0.487 ms, 8: 0.898, 12:
//!   1.308, 16: 1.717, 20: 2.127 ms), i.e. 5 MB/s, a narrow SCSI-1 rate, below the drive's own 21.8 MB/s
//!   media rate. Charged to every read it
//!   would make sequential streaming bus-bound at 4.9 MB/s and add 0.84 ms to a 4 KiB read. pagelab
//!   charges the drive's own interface, Ultra2 Wide SCSI (the "LW" models), 80 MB/s = 6.4 µs per
//!   sector, overlapped with the media transfer. A device file can set `bus_sector_ms = 0.105` to get
//!   the validation rig back.
//! - Writes are write-through (see `hdd.rs`); DiskSim's validated configuration reports writes when
//!   they reach the buffer ("Fast write level = 2").
//! - A read that starts where the running read-ahead is about to read is served by the read-ahead, as
//!   DiskSim does with "Allow almost read hits = 1"; the file says 0, which costs a revolution per
//!   request when the host issues the next read the instant the previous completes (see `hdd.rs`).
//!
//! Sustained rate (`docs/DISK-VALIDATION.md`): the zone table's skews (97 sectors per head switch and
//! 133 per cylinder switch in zone 0, 88 / 80 in zone 10; 2.3–3.2 ms) make back-to-back sequential reads
//! stream at 15.62 MB/s outer and 9.40 MB/s inner, against media rates of 21.77 and 14.31 MB/s; DiskSim
//! 4.0 gives the same on the same requests. Seagate's product manual for the drive (Cheetah 9LP, Rev. C,
//! §4.2.3) gives 0.8 ms per head switch and 1.2 ms per cylinder switch in sequential mode, which would
//! stream at 19.1 → 12.6 MB/s. pagelab keeps the layout DiskSim extracted from a real drive.
//!
//! Replaying DiskSim's validation trace (10,000 requests measured on the real drive, closed loop) with
//! the validation rig's bus, the model's mean read time is 5.67 ms against the drive's 5.80 ms (DiskSim:
//! 5.74 ms); its write-through writes take 7.2 ms against the drive's 1.3 ms write-back ones.
//!
//! Capacity: DiskSim recomputes the block count from the zones (17,918,387 LBNs, `checknumblocks`
//! in `layout_g1_load.c`) and ignores the file's "Block count = 17783240". pagelab keeps the drive's
//! 17,783,240 (9.1 GB): its last LBN lies on cylinder 6894, which is exactly the last distance of the
//! extracted seek curve (full stroke 10.627 ms), so no seek is ever extrapolated.

use super::spec::{CacheSpec, HddOverheads, HddSpec, SeekSpec, ZoneSpec};

/// "Block count": addressable 512-byte sectors of the real drive.
pub const BLOCK_COUNT: u64 = 17_783_240;
pub const SURFACES: u32 = 12;
pub const RPM: u32 = 10_045;
pub const HEAD_SWITCH_MS: f64 = 0.030;
pub const WRITE_SETTLE_MS: f64 = 0.461;
/// Ultra2 Wide SCSI, 80 MB/s: 512 B / 80e6 B/s = 6.4 µs (pagelab's choice, see the module doc).
pub const BUS_SECTOR_MS: f64 = 0.0064;

/// One `dm_layout_g1_zone`, as plain constant data.
pub(super) struct ZoneData {
    first_cylinder: u32,
    last_cylinder: u32,
    sectors_per_track: u32,
    track_skew_sectors: u32,
    cylinder_skew_sectors: u32,
    spares: u64,
    slips: &'static [u64],
}

impl HddSpec {
    /// The validated Cheetah 9LP with its on-board read cache on.
    pub fn cheetah_9lp() -> HddSpec {
        HddSpec {
            name: "Seagate ST39102LW (Cheetah 9LP)".to_string(),
            surfaces: SURFACES,
            capacity_sectors: BLOCK_COUNT,
            rpm: RPM,
            head_switch_ms: HEAD_SWITCH_MS,
            write_settle_ms: WRITE_SETTLE_MS,
            bus_sector_ms: BUS_SECTOR_MS,
            overhead: HddOverheads {
                read_miss_after_read_ms: 0.28362,
                read_miss_after_write_ms: 0.08673,
                read_hit_after_read_ms: 0.066,
                read_hit_after_write_ms: 0.273,
                write_after_read_ms: 0.90692,
                write_after_write_ms: 0.8964,
            },
            seek: SeekSpec {
                table: Some(SEEK_US.iter().map(|&(d, us)| (d, us as f64 / 1e3)).collect()),
                two_piece: None,
            },
            cache: CacheSpec { enabled: true, segments: 3, segment_sectors: 561, readahead_sectors_max: 561 },
            zones: ZONES
                .iter()
                .map(|z| ZoneSpec {
                    first_cylinder: z.first_cylinder,
                    last_cylinder: z.last_cylinder,
                    sectors_per_track: z.sectors_per_track,
                    track_skew_sectors: z.track_skew_sectors,
                    cylinder_skew_sectors: z.cylinder_skew_sectors,
                    first_sector_offset: 0,
                    spares: z.spares,
                    slips: z.slips.to_vec(),
                })
                .collect(),
        }
    }
}

/// The eleven zones of `dm_layout_g1` in `cheetah9LP.model`, outer to inner. Slips are zone-relative
/// physical sector numbers, as DiskSim reads them (`layout_g1.c`, sectors-per-zone sparing).
pub(super) const ZONES: [ZoneData; 11] = [
    ZoneData {
        first_cylinder: 0,
        last_cylinder: 846,
        sectors_per_track: 254,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 133,
        spares: 1270,
        slips: &[
            168317, 223330, 365935, 395944, 792120, 830434, 968787, 1018186, 1116466, 1160816, 1163955,
            1167095, 1169979, 1173118, 1176258, 1500120, 1530141, 1533280, 1536420, 1539304, 1542443,
            1545583, 1746554, 1761359, 2015664, 2072607, 2075492, 2078631, 2081770, 2084655, 2087794,
            2124338, 2168146, 2337052,
        ],
    },
    ZoneData {
        first_cylinder: 848,
        last_cylinder: 1643,
        sectors_per_track: 245,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 133,
        spares: 980,
        slips: &[
            17579, 17580, 17581, 20362, 20363, 20364, 23390, 23391, 23392, 26418, 26419, 26420, 29200, 29201,
            29202, 29854, 29855, 29856, 29857, 29858, 29859, 29860, 29861, 32228, 32229, 32230, 32636, 32637,
            32638, 32639, 32640, 32641, 32642, 32643, 35256, 35257, 35258, 35664, 35665, 35666, 35667, 35668,
            35669, 35670, 35671, 38038, 38039, 38040, 38692, 38693, 38694, 38695, 38696, 38697, 38698, 38699,
            41066, 41067, 41068, 41474, 41475, 41476, 41477, 41478, 41479, 41480, 41481, 44094, 44095, 44096,
            46877, 49905, 49906, 49907, 52687, 52688, 52689, 55715, 58743, 58744, 58745, 61525, 64553, 67581,
            70364, 73392, 76420, 76421, 76422, 79202, 79203, 79204, 81549, 82230, 82231, 82232, 85015, 85259,
            88040, 88041, 88042, 91068, 91069, 91070, 93851, 93852, 93853, 96879, 96880, 96881, 99907, 99908,
            99909, 102689, 105717, 108745, 117583, 117584, 120366, 123394, 126176, 128020, 129204, 132232,
            135014, 135015, 138042, 138043, 141070, 141071, 143853, 146881, 149909, 152691, 155719, 158747,
            161529, 161530, 164557, 164558, 167340, 170368, 173396, 176178, 179206, 182234, 185017, 188045,
            191073, 193855, 193856, 193857, 196883, 199911, 202693, 202694, 202695, 205721, 205722, 205723,
            208503, 208504, 208505, 211531, 211532, 211533, 211609, 214559, 214560, 214561, 217342, 217343,
            217344, 220370, 220371, 220372, 223398, 223399, 223400, 226180, 226181, 226182, 229208, 229209,
            229210, 347465, 420694, 480976, 558160, 597638, 615896, 644510, 1009424, 1155397, 1164202,
            1280940, 1367900, 1638274, 1872992, 1874569, 1997486, 2002106, 2216751,
        ],
    },
    ZoneData {
        first_cylinder: 1645,
        last_cylinder: 2392,
        sectors_per_track: 238,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 117,
        spares: 952,
        slips: &[
            406069, 442306, 448087, 737508, 768729, 771432, 774373, 777077, 780018, 782959, 843184, 843207,
            848841, 1347807, 1380144, 1382847, 1385788, 1388492, 1391433, 1394374, 1397077, 1400019, 1402960,
            1405663, 1408604, 1411546, 1414249, 1417190, 1420132, 1422835, 1425675, 1425776, 1533107,
            1806508, 1898600, 1905995, 1919272, 1981198, 1988404, 2082230,
        ],
    },
    ZoneData {
        first_cylinder: 2394,
        last_cylinder: 3096,
        sectors_per_track: 227,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 116,
        spares: 908,
        slips: &[
            180261, 536668, 825948, 831365, 943993, 1097376, 1265168, 1308030, 1363425, 1506120, 1576805,
            1649545, 1819760,
        ],
    },
    ZoneData {
        first_cylinder: 3098,
        last_cylinder: 3757,
        sectors_per_track: 217,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 108,
        spares: 651,
        slips: &[
            424976, 490108, 492790, 495255, 497937, 503083, 539200, 699219, 740151, 922457, 1024907, 1072773,
            1176801, 1192698, 1207823, 1306084,
        ],
    },
    ZoneData {
        first_cylinder: 3759,
        last_cylinder: 4379,
        sectors_per_track: 209,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 108,
        spares: 627,
        slips: &[
            22192, 47990, 134805, 542634, 762873, 827431, 869032, 1053196, 1094461, 1154389, 1219163,
            1325386, 1387400, 1441837, 1511758,
        ],
    },
    ZoneData {
        first_cylinder: 4381,
        last_cylinder: 4964,
        sectors_per_track: 201,
        track_skew_sectors: 97,
        cylinder_skew_sectors: 108,
        spares: 402,
        slips: &[
            99488, 112150, 229602, 464758, 502158, 520754, 621455, 640206, 808402, 903183, 911214, 977453,
            1153449, 1155933, 1158216, 1160700, 1163184, 1165467, 1175172, 1194725, 1270628, 1360560,
        ],
    },
    ZoneData {
        first_cylinder: 4966,
        last_cylinder: 5515,
        sectors_per_track: 189,
        track_skew_sectors: 88,
        cylinder_skew_sectors: 94,
        spares: 2268,
        slips: &[
            110839, 140319, 244919, 435267, 474557, 489191, 528867, 532061, 540523, 549164, 549944, 552090,
            554426, 556762, 558909, 561245, 591421, 665727, 684300, 689924, 829620, 931362, 940334, 1049764,
            1145315, 1218123, 1222295, 1224816,
        ],
    },
    ZoneData {
        first_cylinder: 5516,
        last_cylinder: 6031,
        sectors_per_track: 181,
        track_skew_sectors: 88,
        cylinder_skew_sectors: 93,
        spares: 1991,
        slips: &[
            10058, 12527, 16981, 33410, 118968, 171450, 189913, 193524, 195207, 202570, 284717, 302650,
            493794, 628887, 634203, 642285, 683872, 695777, 697922, 750816, 768582, 779568, 869113, 869415,
            869794, 871169, 873406, 875643, 877698, 879935, 884228, 886465, 888702, 890757, 893997, 895050,
            897287, 899524, 901579, 912443, 922582, 925185, 941308, 959544, 961781, 963836, 964326, 966073,
            968310, 970366, 972603, 974840, 976895, 979132, 981369, 983425, 985662, 987717, 989954, 992191,
            1003327, 1005564, 1007801, 1009857, 1012094, 1014149, 1016386, 1018623, 1020679, 1022916,
            1025153, 1027208, 1029445, 1031682, 1033738, 1035975, 1038212, 1040267, 1042504, 1044560,
            1046797, 1049034, 1051089, 1053326, 1055564, 1057619, 1057731, 1059856, 1062093, 1064148,
            1066386, 1068443, 1070678, 1072915, 1074970, 1077208, 1079445, 1081500, 1083737, 1085974,
            1091230, 1093286, 1095523, 1095606, 1097760, 1099815, 1102052, 1104108, 1106345, 1108582,
            1110637, 1112874, 1115112, 1117167,
        ],
    },
    ZoneData {
        first_cylinder: 6032,
        last_cylinder: 6517,
        sectors_per_track: 174,
        track_skew_sectors: 88,
        cylinder_skew_sectors: 93,
        spares: 1914,
        slips: &[
            2859, 87132, 104908, 126661, 128638, 130788, 132764, 134915, 137065, 188920, 197915, 277956,
            344381, 354354, 359141, 365375, 388318, 417566, 440698, 445048, 488448, 495244, 496537, 497380,
            514582, 516225, 542613, 565446, 565879, 571989, 641048, 658958, 721070, 728629, 738995, 781299,
            789173, 802770, 834576, 862716, 864866, 866353, 867017, 868993, 871143, 873294, 875270, 877420,
            879397, 881547, 883697, 885264, 893585, 904960, 979650, 991545, 995645, 1003035,
        ],
    },
    ZoneData {
        first_cylinder: 6518,
        last_cylinder: 6961,
        sectors_per_track: 167,
        track_skew_sectors: 88,
        cylinder_skew_sectors: 80,
        spares: 218,
        slips: &[
            19841, 23982, 108946, 141493, 150285, 286157, 358616, 427294, 460891, 476694, 498868, 519575,
            539014, 541078, 541546, 545188, 545189, 546935, 547252, 547253, 548999, 549149, 549150, 551063,
            551213, 551214, 553109, 553110, 555173, 555174, 557237, 557238, 558984, 559134, 559135, 561048,
            561198, 561199, 563112, 563262, 563263, 565158, 565159, 568969, 571033, 573097, 585623, 627051,
            671048, 690977, 716436,
        ],
    },
];

/// `cheetah9LP.seek`: the extracted seek curve, (distance in cylinders, time in µs), 106 rows.
pub(super) const SEEK_US: [(u32, u32); 106] = [
    (1, 831),
    (2, 1003),
    (3, 1089),
    (4, 1092),
    (5, 1268),
    (6, 1263),
    (7, 1271),
    (8, 1439),
    (9, 1433),
    (10, 1448),
    (12, 1449),
    (14, 1447),
    (16, 1453),
    (18, 1533),
    (20, 1534),
    (25, 1625),
    (30, 1624),
    (35, 1712),
    (40, 1715),
    (45, 1765),
    (50, 1804),
    (60, 1893),
    (70, 1945),
    (80, 1983),
    (90, 2072),
    (100, 2145),
    (125, 2161),
    (150, 2259),
    (175, 2510),
    (200, 2517),
    (225, 2519),
    (250, 2607),
    (275, 2701),
    (300, 2699),
    (325, 2841),
    (350, 2874),
    (375, 2962),
    (400, 3051),
    (425, 3014),
    (450, 3104),
    (475, 3098),
    (500, 3230),
    (600, 3399),
    (700, 3638),
    (800, 3823),
    (900, 3995),
    (1000, 4118),
    (1100, 4271),
    (1200, 4397),
    (1300, 4427),
    (1400, 4573),
    (1500, 4757),
    (1600, 4833),
    (1700, 4930),
    (1800, 4993),
    (1900, 5190),
    (2000, 5282),
    (2100, 5428),
    (2200, 5541),
    (2300, 5624),
    (2400, 5726),
    (2500, 5815),
    (2600, 5963),
    (2700, 6082),
    (2800, 6163),
    (2900, 6245),
    (3000, 6345),
    (3100, 6423),
    (3200, 6665),
    (3300, 6737),
    (3400, 6847),
    (3500, 6887),
    (3600, 6977),
    (3700, 7068),
    (3800, 7164),
    (3900, 7328),
    (4000, 7419),
    (4100, 7507),
    (4200, 7649),
    (4300, 7691),
    (4400, 7831),
    (4500, 7959),
    (4600, 8087),
    (4700, 8135),
    (4800, 8223),
    (4900, 8311),
    (5000, 8492),
    (5100, 8626),
    (5200, 8659),
    (5300, 8805),
    (5400, 8987),
    (5500, 8962),
    (5600, 9106),
    (5700, 9201),
    (5800, 9296),
    (5900, 9524),
    (6000, 9698),
    (6100, 9702),
    (6200, 9830),
    (6300, 9878),
    (6400, 10009),
    (6500, 10147),
    (6600, 10230),
    (6700, 10363),
    (6800, 10540),
    (6894, 10627),
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::PathBuf;

    fn reference(file: &str) -> String {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../data/reference").join(file);
        std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("the DiskSim reference file {} is needed here: {e}", path.display()))
    }

    /// DiskSim parameter text: `key = value,` lines (first occurrence wins) outside zone blocks, and one
    /// map per `dm_layout_g1_zone { ... }` block with its `slips = [ ... ]` list.
    struct Parsed {
        top: HashMap<String, String>,
        zones: Vec<(HashMap<String, String>, Vec<u64>)>,
    }

    fn parse_disksim(text: &str) -> Parsed {
        let mut parsed = Parsed { top: HashMap::new(), zones: Vec::new() };
        let (mut in_zone, mut in_slips) = (false, false);
        for raw in text.lines() {
            let line = raw.split('#').next().unwrap().trim();
            if line.starts_with("dm_layout_g1_zone {") {
                parsed.zones.push((HashMap::new(), Vec::new()));
                in_zone = true;
                continue;
            }
            if in_zone && !in_slips && line.starts_with('}') {
                in_zone = false;
                continue;
            }
            if line.starts_with("slips = [") {
                in_slips = true;
                continue;
            }
            if in_slips {
                if line.starts_with(']') {
                    in_slips = false;
                } else {
                    parsed.zones.last_mut().unwrap().1.push(line.trim_end_matches(',').parse().unwrap());
                }
                continue;
            }
            let Some((key, value)) = line.split_once(" = ") else { continue };
            let value = value.trim_end_matches(',').trim().to_string();
            let map = match parsed.zones.last_mut() {
                Some((zone, _)) if in_zone => zone,
                _ => &mut parsed.top,
            };
            map.entry(key.to_string()).or_insert(value);
        }
        parsed
    }

    fn num(map: &HashMap<String, String>, key: &str) -> f64 {
        map.get(key).unwrap_or_else(|| panic!("DiskSim file has no `{key}`")).parse().unwrap()
    }

    #[test]
    fn embedded_zone_table_equals_the_disksim_model() {
        let model = parse_disksim(&reference("disksim/cheetah9LP.model"));
        let spec = HddSpec::cheetah_9lp();
        assert_eq!(num(&model.top, "Number of data surfaces"), spec.surfaces as f64);
        assert_eq!(num(&model.top, "Block count"), spec.capacity_sectors as f64);
        assert_eq!(num(&model.top, "Number of cylinders"), 6962.0);
        assert_eq!(num(&model.top, "Rotation speed (in rpms)"), spec.rpm as f64);
        assert_eq!(num(&model.top, "Head switch time"), spec.head_switch_ms);
        assert_eq!(num(&model.top, "Add. write settling delay"), spec.write_settle_ms);
        assert_eq!(num(&model.top, "Sparing scheme used"), 9.0, "sectors-per-zone sparing");
        assert_eq!(num(&model.top, "LBN-to-PBN mapping scheme"), 0.0, "conventional mapping");
        assert_eq!(model.zones.len(), spec.zones.len());
        for (i, ((z, slips), ours)) in model.zones.iter().zip(&spec.zones).enumerate() {
            let got = [
                num(z, "First cylinder number"),
                num(z, "Last cylinder number"),
                num(z, "Blocks per track"),
                num(z, "Skew for track switch"),
                num(z, "Skew for cylinder switch"),
                num(z, "Number of spares"),
                num(z, "Offset of first block"),
                num(z, "Empty space at zone front"),
            ];
            let want = [
                ours.first_cylinder as f64,
                ours.last_cylinder as f64,
                ours.sectors_per_track as f64,
                ours.track_skew_sectors as f64,
                ours.cylinder_skew_sectors as f64,
                ours.spares as f64,
                ours.first_sector_offset as f64,
                0.0,
            ];
            assert_eq!(got, want, "zone {i}");
            assert_eq!(slips, &ours.slips, "zone {i} slips");
        }
        let slips: usize = spec.zones.iter().map(|z| z.slips.len()).sum();
        assert_eq!(slips, 594);
    }

    #[test]
    fn embedded_seek_curve_equals_both_seek_files() {
        let spec = HddSpec::cheetah_9lp();
        let ours = spec.seek.table.unwrap();
        let model = parse_disksim(&reference("disksim/cheetah9LP.model"));
        assert_eq!(num(&model.top, "Single cylinder seek time"), ours[0].1);
        assert_eq!(num(&model.top, "Full strobe seek time"), ours[105].1);
        let original = reference("disksim/cheetah9LP.seek");
        let (header, rows) = original.split_once('\n').unwrap();
        assert_eq!(header.trim(), "Seek distances measured: 106");
        for (file, text, sep) in
            [("cheetah9LP.seek", rows.to_string(), ','), ("seek.txt", reference("cheetah9LP.seek.txt"), '\t')]
        {
            let parsed: Vec<(u32, f64)> = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|l| {
                    let (d, t) = l.split_once(sep).unwrap();
                    (d.trim().parse().unwrap(), t.trim().parse().unwrap())
                })
                .collect();
            assert_eq!(parsed, ours, "{file}");
        }
    }

    #[test]
    fn embedded_controller_and_cache_equal_the_diskspecs() {
        let specs = parse_disksim(&reference("disksim/cheetah9LP.diskspecs"));
        let spec = HddSpec::cheetah_9lp();
        let o = &spec.overhead;
        assert_eq!(num(&specs.top, "Read miss over. after read"), o.read_miss_after_read_ms);
        assert_eq!(num(&specs.top, "Read miss over. after write"), o.read_miss_after_write_ms);
        assert_eq!(num(&specs.top, "Read hit over. after read"), o.read_hit_after_read_ms);
        assert_eq!(num(&specs.top, "Read hit over. after write"), o.read_hit_after_write_ms);
        assert_eq!(num(&specs.top, "Write miss over. after read"), o.write_after_read_ms);
        assert_eq!(num(&specs.top, "Write miss over. after write"), o.write_after_write_ms);
        assert_eq!(num(&specs.top, "Number of buffer segments"), spec.cache.segments as f64);
        assert_eq!(num(&specs.top, "Segment size (in blks)"), spec.cache.segment_sectors as f64);
        assert_eq!(num(&specs.top, "Maximum read-ahead (blks)"), spec.cache.readahead_sectors_max as f64);
        assert_eq!(num(&specs.top, "Enable caching in buffer"), 1.0);
        // pagelab departs here on purpose (module doc): the validation rig's 5 MB/s host path.
        assert_eq!(num(&specs.top, "Bulk sector transfer time"), 0.105);
        assert!(spec.bus_sector_ms < 0.105 / 10.0);
        // And here: pagelab serves a read that starts at the read-ahead's next sector from the stream,
        // DiskSim's "Allow almost read hits = 1" (module doc, `hdd.rs`).
        assert_eq!(num(&specs.top, "Allow almost read hits"), 0.0);
        assert_eq!(num(&specs.top, "Immed transfer partial hit"), 1.0);
    }
}
