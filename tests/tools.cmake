# Tests of the example programs (simlod-convert, simlod-info, simlod-render, simlod-demo,
# simlod-compare, simlod-preview), run through
# tools/run_tool.cmake (see there for the step syntax). Tests that read the shared test data
# skip when SIMLOD_TEST_DATA is unset at test time.

# simlod_tool_test(<name> [NEEDS_DATA] STEP <step>... [STEP <step>...])
function(simlod_tool_test name)
  set(steps "")
  set(current "")
  set(needs_data OFF)
  foreach(arg IN LISTS ARGN)
    if(arg STREQUAL "NEEDS_DATA")
      set(needs_data ON)
    elseif(arg STREQUAL "STEP")
      if(NOT current STREQUAL "")
        list(APPEND steps "${current}")
      endif()
      set(current "")
    elseif(current STREQUAL "")
      set(current "${arg}")
    else()
      string(APPEND current "|${arg}")
    endif()
  endforeach()
  list(APPEND steps "${current}")

  set(defs "")
  set(n 0)
  foreach(step IN LISTS steps)
    math(EXPR n "${n} + 1")
    list(APPEND defs "-DSTEP${n}=${step}")
  endforeach()
  add_test(NAME ${name}
    COMMAND ${CMAKE_COMMAND}
      -DCONVERT=$<TARGET_FILE:simlod-convert>
      -DINFO=$<TARGET_FILE:simlod-info>
      -DRENDER=$<TARGET_FILE:simlod-render>
      -DDEMO=$<TARGET_FILE:simlod-demo>
      -DCOMPARE=$<TARGET_FILE:simlod-compare>
      -DPREVIEW=$<TARGET_FILE:simlod-preview>
      -DGROUND=$<TARGET_FILE:simlod-ground>
      -DVISIBILITY=$<TARGET_FILE:simlod-visibility>
      -DWORK_DIR=${CMAKE_CURRENT_BINARY_DIR}/tools-work/${name}
      -DNEEDS_DATA=${needs_data}
      -DSTEPS=${n}
      ${defs}
      -P ${CMAKE_CURRENT_LIST_DIR}/tools/run_tool.cmake)
  set_tests_properties(${name} PROPERTIES LABELS tools SKIP_REGULAR_EXPRESSION
                       "SIMLOD_TEST_SKIPPED")
endfunction()

# simlod-info on real files: text and JSON.
simlod_tool_test(tool_info_las NEEDS_DATA
  STEP info <DATA>/lion_takanawa.las "OUT=points +341989[^0-9]" "OUT=format +LAS 1.2"
       "OUT=point format +2[^0-9]" "OUT=colour +RGB")
simlod_tool_test(tool_info_json NEEDS_DATA
  STEP info <DATA>/lion_takanawa.las --json "OUT=^{.*}" "OUT=\"points\": 341989,"
       "OUT=\"format\": \"LAS\"," "OUT=\"bounds\": {\"min\": .[-0-9]" "OUT=\"has_color\": true,")

# LAS/LAZ: the CRS, the VLRs, and counts and ranges from one pass over the points.
simlod_tool_test(tool_info_las_attributes NEEDS_DATA
  STEP info <DATA>/haystack_rock.las "OUT=crs +EPSG:3645 \\+ vertical EPSG:5703"
       "OUT=units +metre \\(vertical: metre\\)" "OUT=LASF_Projection 34735"
       "OUT=classes +0 never classified: 21932" "OUT=returns +1: 21932"
  STEP info <DATA>/formats/f8.las --json "OUT=\"classes\": {\"0\": 5000,"
       "OUT=\"nir\": {\"min\": 7, \"max\": 7}" "OUT=\"returns\": {\"1\": 100000}"
  STEP info <DATA>/haystack_rock.las --header-only "OUT=crs +EPSG:3645")

# simlod-convert: LAS -> SIM -> LAS keeps every point; synthetic scenes.
simlod_tool_test(tool_convert_las_sim_las NEEDS_DATA
  STEP convert <DATA>/lion_takanawa.las <WORK>/lion.sim "OUT=wrote 341989 points"
  STEP info <WORK>/lion.sim "OUT=points +341989[^0-9]" "OUT=format +SIM"
  STEP convert <WORK>/lion.sim <WORK>/lion.las --scale 0.001 --progress
       "ERR=converting .*100.0%"
  STEP info <WORK>/lion.las --json "OUT=\"points\": 341989," "OUT=\"point_format\": 2,")
# LAS -> LAS in the input's format copies the file's records, header fields and VLRs: the
# output is the same file byte for byte. Re-encoding (SIM output) names what it drops.
simlod_tool_test(tool_convert_keeps_every_attribute NEEDS_DATA
  STEP convert <DATA>/formats/f6.las <WORK>/f6.las --batch 30000
       "OUT=kept every attribute of point format 6 \\(30-byte records\\)"
  STEP cmake -E compare_files <DATA>/formats/f6.las <WORK>/f6.las
  STEP convert <DATA>/haystack_rock.las <WORK>/h.las -q
  STEP convert <WORK>/h.las <WORK>/h.sim "ERR=warning: .*h.sim' is written from simlod points"
       "ERR=intensity, return numbers, classification" "ERR=LASF_Projection 34735"
  STEP convert <WORK>/h.las <WORK>/h2.las --point-format 2
       "ERR=point format 0 to 2: RGB \\(absent in the input\\) written as 0"
  STEP info <WORK>/h2.las --header-only "OUT=crs +EPSG:3645")
# Another point format converts the records and names what the target cannot hold; a
# colourless input never gets invented RGB.
simlod_tool_test(tool_convert_point_format NEEDS_DATA
  STEP convert <DATA>/formats/f6.las <WORK>/f2.las --point-format 2
       "ERR=point format 6 to 2: GPS time: 99999 points, RGB \\(absent in the input\\) written as 0"
       "OUT=written as point format 2"
  STEP info <WORK>/f2.las --json "OUT=\"point_format\": 2," "OUT=\"classes\": {\"0\": 5000,"
  STEP convert <DATA>/formats/f6.las <WORK>/f2j.las --point-format 2 --json
       "OUT=\"records_copied\": true," "OUT=\"dropped\": {\"GPS time\": 99999},"
       "OUT=\"zeroed\": .\"RGB\".," "OUT=\"warnings\": .\"point format 6 to 2"
  STEP convert <DATA>/bun_zipper.ply <WORK>/bunny.las -q
  STEP info <WORK>/bunny.las --header-only "OUT=point format +6" "OUT=extra +confidence"
  STEP convert <DATA>/bun_zipper.ply <WORK>/bunny0.las --point-format 0
       "OUT=kept intensity, 'confidence' as point format 0"
  STEP info <WORK>/bunny0.las --json "OUT=\"point_format\": 0,"
       "OUT=\"extra_attributes\": .\"confidence\"." "OUT=\"intensity\": {\"min\": 0, \"max\": 32768}"
  STEP convert <DATA>/bun_zipper.ply <WORK>/bunny.sim
       "ERR=bunny.sim' is written from simlod points .XYZ and colour.: intensity, confidence of")
# Several inputs merge into one output: LAS records in the first's format, scale and offset.
simlod_tool_test(tool_convert_merges_inputs NEEDS_DATA
  STEP convert <DATA>/formats/f6.las <DATA>/formats/f7.las <WORK>/m.las
       "OUT=kept otherwise every attribute of point format 6 .30-byte records. and 0 VLRs, 2 files merged"
       "ERR=point format 6 to 6: RGB: 99609 points"
  STEP info <WORK>/m.las --json "OUT=\"points\": 200000," "OUT=\"classes\": {\"0\": 10000,"
  STEP convert <DATA>/haystack_rock.las <DATA>/lion_node_r.las <WORK>/hl.las
       "ERR=give different coordinate reference systems"
  STEP info <WORK>/hl.las "OUT=points +27134[^0-9]" "OUT=crs +EPSG:3645"
  STEP convert <DATA>/lion_node_r.las <DATA>/bun_zipper.ply <WORK>/lb.sim
       "ERR=intensity, confidence of '.*bun_zipper.ply' are not kept"
  STEP info <WORK>/lb.sim "OUT=points +41149[^0-9]"
  STEP convert <WORK>/hl.las <WORK>/lb.sim <WORK>/hl.las RC=1 "ERR=hl.las': input and output are the same file"
  STEP convert <WORK>/hl.las RC=105 "ERR=expected IN... OUT")
if(LASzip_FOUND)
  simlod_tool_test(tool_convert_laz_keeps_every_attribute NEEDS_DATA
    STEP convert <DATA>/formats/f8.las <WORK>/f8.laz -q
    STEP convert <WORK>/f8.laz <WORK>/f8.las "OUT=kept every attribute of point format 8"
    STEP cmake -E compare_files <DATA>/formats/f8.las <WORK>/f8.las)
  simlod_tool_test(tool_convert_laz_sim NEEDS_DATA
    STEP convert <DATA>/lion_takanawa.laz <WORK>/lion.sim --threads 2 --batch 50000
    STEP info <WORK>/lion.sim "OUT=points +341989[^0-9]")
endif()
simlod_tool_test(tool_convert_synthetic
  STEP convert --synthetic 10000 <WORK>/x.sim --seed 7 "OUT=wrote 10000 points"
  STEP info <WORK>/x.sim "OUT=points +10000[^0-9]"
  STEP convert --synthetic 10000 <WORK>/m.las --order morton --batch 3000 --quiet
  STEP info <WORK>/m.las "OUT=points +10000[^0-9]"
  STEP convert --synthetic 10000 <WORK>/r.sim --order random --quiet
  STEP info <WORK>/r.sim "OUT=points +10000[^0-9]"
  STEP demo <WORK>/r.sim --backend cpu --batch 1000 --width 64 --height 48 -q -o <WORK>/r
       "OUT=simlod-demo: 10000 points")

simlod_tool_test(tool_convert_ply_sim
  STEP info <SRC>/data/tiny.ply "OUT=format +PLY ascii 1.0" "OUT=points +3[^0-9]"
       "OUT=bounds max +2 1 0.5" "OUT=generator +three coloured points"
  STEP convert <SRC>/data/tiny.ply <WORK>/tiny.sim "OUT=wrote 3 points"
  STEP info <WORK>/tiny.sim --json "OUT=\"points\": 3," "OUT=\"max\": .2, 1, 0.5.")

# Bad input: exit code 1 and "simlod-<tool>: error: <message>"; no partial output left.
simlod_tool_test(tool_info_missing_file
  STEP info <WORK>/missing.las RC=1 "ERR=^simlod-info: error: cannot open '.*missing.las'")
simlod_tool_test(tool_convert_missing_file
  STEP convert <WORK>/missing.las <WORK>/out.sim RC=1
       "ERR=^simlod-convert: error: '.*missing.las': no such file or folder"
       ABSENT=<WORK>/out.sim)
simlod_tool_test(tool_info_truncated_sim
  STEP info <SRC>/data/truncated.sim RC=1
       "ERR=^simlod-info: error: .*truncated record at byte offset 24")
simlod_tool_test(tool_convert_truncated_ply
  STEP convert <SRC>/data/truncated.ply <WORK>/out.sim RC=1
       "ERR=^simlod-convert: error: .*truncated.ply' is truncated: "
       "ERR=declares 4 vertices but the data ends at line 11 after 3 vertices"
       ABSENT=<WORK>/out.sim)
# A conversion that fails part-way leaves an older output as it was, and no partial file.
simlod_tool_test(tool_convert_failure_keeps_the_old_output
  STEP convert <SRC>/data/tiny.ply <WORK>/out.sim "OUT=wrote 3 points"
  STEP convert <SRC>/data/truncated.ply <WORK>/out.sim RC=1 "ERR=truncated.ply' is truncated"
  STEP info <WORK>/out.sim "OUT=points +3[^0-9]"
  STEP cmake -E rm -f <WORK>/out.sim
  STEP convert <SRC>/data/truncated.ply <WORK>/out.sim RC=1 ABSENT=<WORK>/out.sim)
simlod_tool_test(tool_unknown_extension
  STEP convert <SRC>/data/truncated.sim <WORK>/out.xyz RC=1
       "ERR=^simlod-convert: error: .*unknown point-cloud format '.xyz'" ABSENT=<WORK>/out.xyz
  STEP info <WORK>/points.txt RC=1 "ERR=^simlod-info: error: .*unknown point-cloud format"
  STEP convert <SRC>/data/tiny.ply <WORK>/out.ply RC=1 "ERR=writing PLY is not supported"
       ABSENT=<WORK>/out.ply)
# Usage errors keep CLI11's exit codes (106: required argument missing, 105: validation).
simlod_tool_test(tool_usage_errors
  STEP convert RC=106 "ERR=files is required"
  STEP convert --synthetic 10 <WORK>/a.sim <WORK>/b.sim RC=105 "ERR=with --synthetic"
  STEP convert a.las b.las --point-format 11 RC=105)

# simlod-render: builds the octree and writes one PNG per view; bad input is a clear error.
simlod_tool_test(tool_render_synthetic
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 -o <WORK>/s
       "OUT=20000 points, [0-9]+ nodes, cpu backend" "OUT=overview: [1-9][0-9]* nodes"
       "OUT=closeup: [1-9][0-9]* nodes" EXISTS=<WORK>/s-overview.png EXISTS=<WORK>/s-closeup.png
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 -o <WORK>/b --hq --edl
       --budget 5000 --lod 0 --views closeup EXISTS=<WORK>/b-closeup.png
       ABSENT=<WORK>/b-overview.png
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 -o <WORK>/k --bulk
       "OUT=bulk build of 20000 points" "OUT=20000 points, [0-9]+ nodes, cpu backend"
       EXISTS=<WORK>/k-overview.png
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 -o <WORK>/a
       --sampling average "OUT=bulk build of 20000 points" EXISTS=<WORK>/a-overview.png
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 -o <WORK>/w
       --sampling weighted "OUT=bulk build of 20000 points" EXISTS=<WORK>/w-overview.png)
simlod_tool_test(tool_render_ply
  STEP render <SRC>/data/tiny.ply --backend cpu --width 32 --height 32 -o <WORK>/t
       "OUT=3 points, 1 nodes" EXISTS=<WORK>/t-overview.png)
simlod_tool_test(tool_render_errors
  STEP render <WORK>/missing.las RC=1 "ERR=^simlod-render: error: cannot open '.*missing.las'"
  STEP render --synthetic 100 --backend cpu --views sideways -o <WORK>/x RC=1
       "ERR=^simlod-render: error: unknown view 'sideways'"
  STEP render --synthetic 100 --backend gpu RC=1 "ERR=^simlod-render: error: .*gpu"
  STEP render --synthetic 100 --backend cpu --color height RC=105 "ERR=--color: height not in"
  STEP render --synthetic 100 --backend cpu --sampling mean RC=1
       "ERR=^simlod-render: error: unknown sampling 'mean' .use first, random, average, weighted.")
# One camera vocabulary: --view lists, --yaw/--pitch/--distance, --up; checked before loading.
simlod_tool_test(tool_cameras NEEDS_DATA
  STEP render <DATA>/bun_zipper.ply --backend cpu --width 64 --height 48 --up y
       --view top,front --yaw 20 --pitch 10 -o <WORK>/b EXISTS=<WORK>/b-top.png
       EXISTS=<WORK>/b-front.png ABSENT=<WORK>/b-overview.png
  STEP render <DATA>/lion_takanawa.las --backend cpu --width 64 --height 48 --view closeup
       --distance 5 --point-size 3 -o <WORK>/l EXISTS=<WORK>/l-closeup.png
  STEP render <DATA>/lion_takanawa.las --backend cpu --point-size 17 RC=105 "ERR=--point-size"
  STEP demo <DATA>/lion_takanawa.las --backend cpu --width 64 --height 48 --view front,top
       --batch 50000 -q -o <WORK>/d "OUT=pictures: .*d-front.png, .*d-top.png"
  STEP preview <DATA>/bun_zipper.ply --up y --view front --point-size 2 --width 64 --height 48
       -o <WORK>/p.png EXISTS=<WORK>/p.png
  STEP render <WORK>/never-read.las --view sideways RC=1 "ERR=unknown view 'sideways'"
  STEP demo <WORK>/never-read.las --pitch 95 RC=1 "ERR=--pitch 95 must lie in"
  STEP render --synthetic 100 --backend cpu --up x RC=1 "ERR=--up 'x'"
  STEP preview <DATA>/bun_zipper.ply --distance 3 -o <WORK>/q.png RC=1 "ERR=orthographic"
       ABSENT=<WORK>/q.png)
# --progress draws the bar in every tool, also when stderr is no terminal.
simlod_tool_test(tool_progress_everywhere NEEDS_DATA
  STEP render <DATA>/lion_node_r.las --backend cpu --width 32 --height 24 --view top --progress
       -o <WORK>/r "ERR=building .*100.0%"
  STEP render <DATA>/lion_node_r.las --backend cpu --width 32 --height 24 --view top --progress
       --bulk -o <WORK>/b "ERR=loading .*100.0%"
  STEP preview <DATA>/lion_node_r.las --width 32 --height 24 --progress -o <WORK>/p.png
       "ERR=drawing .*100.0%"
  STEP info <DATA>/lion_node_r.las --progress "ERR=reading .*100.0%"
  STEP demo <DATA>/lion_node_r.las --backend cpu --width 32 --height 24 --progress
       -o <WORK>/d "ERR=streaming .*100.0%"
  STEP convert <DATA>/lion_node_r.las <WORK>/c.sim --progress "ERR=converting .*100.0%"
  STEP compare <DATA>/lion_node_r.las --backend cpu --width 32 --height 24 --views 1
       --no-images --progress "ERR=loading .*100.0%")
# Colour by an attribute as the points load.
simlod_tool_test(tool_color_by_attribute NEEDS_DATA
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --view top
       --color classification -o <WORK>/c EXISTS=<WORK>/c-top.png
  STEP render <DATA>/formats/f1.las --backend cpu --width 64 --height 48 --view top --bulk
       --color intensity -o <WORK>/i EXISTS=<WORK>/i-top.png
  STEP demo <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --batch 30000 -q
       --color returns -o <WORK>/r EXISTS=<WORK>/r-overview.png
  STEP render <DATA>/bun_zipper.ply --backend cpu --color classification -o <WORK>/x RC=1
       "ERR=asked for classification but the PLY file has no such attribute"
  STEP render --synthetic 100 --backend cpu --color source -o <WORK>/x RC=1
       "ERR=the synthetic scene has no source"
  STEP render --synthetic 100 --backend cpu --color classification,intensity -o <WORK>/x RC=1
       "ERR=several attribute colours need --channels"
  STEP render --synthetic 100 --backend cpu --color classification --channels -o <WORK>/x RC=1
       "ERR=the synthetic scene has no classification"
  STEP render --synthetic 100 --backend cpu --color rgb --channels -o <WORK>/x RC=1
       "ERR=--channels needs an attribute in --color"
  STEP render --synthetic 100 --backend cpu --color intensity --channels --bulk -o <WORK>/x
       RC=1 "ERR=the synthetic scene has no intensity")
# Attribute channels: one load, one picture per colour; a file without the attribute refused.
simlod_tool_test(tool_render_channels NEEDS_DATA
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --views overview
       --color classification,intensity,rgb --channels -o <WORK>/c "OUT=100000 points"
       "OUT=overview classification: " EXISTS=<WORK>/c-overview-classification.png
       EXISTS=<WORK>/c-overview-intensity.png EXISTS=<WORK>/c-overview-rgb.png
       ABSENT=<WORK>/c-overview.png
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --views overview
       --sampling random --color classification --channels -o <WORK>/r "OUT=100000 points"
       "OUT=bulk build of 100000 points" EXISTS=<WORK>/r-overview.png
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --views overview --bulk
       --color intensity,classification --channels -o <WORK>/b "OUT=bulk build of 100000 points"
       EXISTS=<WORK>/b-overview-intensity.png EXISTS=<WORK>/b-overview-classification.png
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --views overview
       --sampling average --color classification,intensity --channels -o <WORK>/a
       "OUT=100000 points" EXISTS=<WORK>/a-overview-classification.png
  STEP render <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --views overview
       --sampling weighted --color classification --channels -o <WORK>/w "OUT=100000 points"
       EXISTS=<WORK>/w-overview.png
  STEP render <DATA>/bun_zipper.ply --backend cpu --color classification --channels
       -o <WORK>/b RC=1 "ERR=asked for classification but the PLY file has no such attribute")
# Colour by elevation: asked for, and by default for a file without colour.
simlod_tool_test(tool_render_elevation NEEDS_DATA
  STEP render <DATA>/haystack_rock.las --backend cpu --width 64 --height 48 --views overview
       -o <WORK>/auto "OUT=21932 points" EXISTS=<WORK>/auto-overview.png
  STEP render --synthetic 20000 --backend cpu --width 64 --height 48 --views overview
       --color elevation -o <WORK>/e EXISTS=<WORK>/e-overview.png)


# simlod-demo: streams while rendering, writes frames, final pictures and the JSON summary;
# a truncated file in a folder is reported by name while the good files are streamed.
simlod_tool_test(tool_demo_synthetic
  STEP demo --points 200000 --backend cpu --width 64 --height 48 --batch 20000 --fps 0
       --frames <WORK>/frames --frame-ms 0 --stats <WORK>/stats.json -o <WORK>/final
       "OUT=200000 points in" "OUT=first picture after" "OUT=update: [0-9]+ calls"
       EXISTS=<WORK>/final-overview.png EXISTS=<WORK>/final-closeup.png
       EXISTS=<WORK>/frames/frame-00000.png EXISTS=<WORK>/stats.json
  STEP cmake -E cat <WORK>/stats.json "OUT=\"points\": 200000," "OUT=\"bulk\": false,"
       "OUT=\"sampling\": \"first\"")
# A run's frames never mix with an earlier run's; the summary says why updates overran the
# budget.
simlod_tool_test(tool_demo_frames_and_budget
  STEP demo --points 100000 --backend cpu --width 32 --height 24 --batch 50000 --fps 0
       --frames <WORK>/frames --frame-ms 0 --budget-ms 0.001 -q -o <WORK>/a
       "OUT=of the updates took longer than the 0.001 ms budget: an update inserts at least one"
       EXISTS=<WORK>/frames/frame-00001.png
  STEP cmake -E touch <WORK>/frames/notes.txt
  STEP demo --bulk --points 1000 --backend cpu --width 32 --height 24 --frames <WORK>/frames
       -o <WORK>/b "OUT=removed [0-9]+ frames of an earlier run from"
       EXISTS=<WORK>/frames/frame-00000.png ABSENT=<WORK>/frames/frame-00001.png
       EXISTS=<WORK>/frames/notes.txt)
# Streaming keeps every voxel colour filter (weighted: computed when the last batch is in).
# --channels: the attribute of --color stays in the octree and every frame colours by it.
simlod_tool_test(tool_demo_channels NEEDS_DATA
  STEP demo <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --color intensity
       --channels -q -o <WORK>/c "OUT=^simlod-demo: 100000 points in"
       EXISTS=<WORK>/c-overview.png
  STEP demo --points 1000 --backend cpu --color classification --channels -o <WORK>/s RC=1
       "ERR=the synthetic scene has no attributes for the octree's channels .classification."
  STEP demo --points 1000 --backend cpu --color classification --channels --bulk -o <WORK>/s
       RC=1 "ERR=the synthetic town has no classification to keep as a channel"
  STEP demo <DATA>/formats/f6.las --backend cpu --width 64 --height 48 --color classification
       --channels --bulk --sampling random -q -o <WORK>/b "OUT=bulk build"
       EXISTS=<WORK>/b-overview.png
  STEP demo --points 1000 --backend cpu --color rgb --channels -o <WORK>/s RC=1
       "ERR=--channels needs an attribute in --color")
simlod_tool_test(tool_demo_streaming_sampling
  STEP demo --sampling average --points 20000 --backend cpu --width 64 --height 48 --batch 5000
       -q --stats <WORK>/stats.json -o <WORK>/a "OUT=^simlod-demo: 20000 points in"
       "OUT=update: [0-9]+ calls, .*, voxel colours: average" EXISTS=<WORK>/a-overview.png
  STEP cmake -E cat <WORK>/stats.json "OUT=\"points\": 20000," "OUT=\"bulk\": false,"
       "OUT=\"sampling\": \"average\""
  STEP demo --sampling weighted --points 20000 --backend cpu --width 64 --height 48 --batch 5000
       -q -o <WORK>/w "OUT=voxel colours: weighted" EXISTS=<WORK>/w-overview.png)
# --bulk: every point first, then one build; the picture appears once, after the build.
simlod_tool_test(tool_demo_bulk
  STEP demo --bulk --points 20000 --backend cpu --width 64 --height 48 --frames <WORK>/frames
       --stats <WORK>/stats.json -o <WORK>/final
       "OUT=^simlod-demo: 20000 points in [0-9.]+ s .*, cpu backend, bulk build"
       "OUT=load: [0-9.]+ s .*from synthetic town, seed 1"
       "OUT=build: [0-9.]+ ms .split [0-9.]+ ms, voxelize [0-9.]+ ms., [0-9.]+ M points/s, voxel colours: first"
       "OUT=first picture after [0-9.]+ ms" "OUT=octree: [1-9][0-9]* nodes"
       "OUT=pictures: .*final-overview.png, .*final-closeup.png, 1 frames in"
       EXISTS=<WORK>/final-overview.png EXISTS=<WORK>/final-closeup.png
       EXISTS=<WORK>/frames/frame-00000.png EXISTS=<WORK>/stats.json
  STEP cmake -E cat <WORK>/stats.json "OUT=\"points\": 20000," "OUT=\"bulk\": true,"
       "OUT=\"sampling\": \"first\"," "OUT=\"load_seconds\": [0-9]" "OUT=\"build_ms\": [0-9]"
       "OUT=\"split_ms\": [0-9]" "OUT=\"voxelize_ms\": [0-9]" "OUT=\"renders\": 1,"
  STEP demo --bulk --sampling average --points 200000 --backend cpu --width 64 --height 48 -q
       -o <WORK>/average "OUT=200000 points in" "OUT=voxel colours: average"
       "OUT=[1-9][0-9]* inner.*, [1-9][0-9]* voxels" EXISTS=<WORK>/average-closeup.png)
# A folder read whole: its point clouds in name order; a bad file stops the bulk run.
simlod_tool_test(tool_demo_bulk_folder
  STEP cmake -E make_directory <WORK>/tiles
  STEP convert --synthetic 5000 <WORK>/tiles/b.sim --seed 2
  STEP convert --synthetic 3000 <WORK>/tiles/a.las --seed 3
  STEP convert <SRC>/data/tiny.ply <WORK>/tiles/c.sim
  STEP demo <WORK>/tiles --bulk --backend cpu --width 64 --height 48 -o <WORK>/final
       "OUT=^simlod-demo: 8003 points in" "OUT=from .*tiles .3 files." EXISTS=<WORK>/final-overview.png
  STEP cmake -E copy <SRC>/data/truncated.sim <WORK>/tiles/b2.sim
  STEP demo <WORK>/tiles --bulk --backend cpu --width 64 --height 48 -o <WORK>/bad RC=1
       "ERR=^simlod-demo: error: '.*b2.sim' ends with a truncated record"
       ABSENT=<WORK>/bad-overview.png)
simlod_tool_test(tool_demo_folder_with_bad_file NEEDS_DATA
  STEP cmake -E make_directory <WORK>/tiles
  STEP convert <DATA>/lion_takanawa.las <WORK>/tiles/a.sim
  STEP convert <DATA>/lion_node_r.las <WORK>/tiles/b.las
  STEP convert <SRC>/data/tiny.ply <WORK>/tiles/c.sim
  STEP cmake -E copy <SRC>/data/truncated.sim <WORK>/tiles/b2.sim
  STEP demo <WORK>/tiles --backend cpu --width 64 --height 48 -o <WORK>/final RC=1
       "ERR=simlod-demo: '.*b2.sim' ends with a truncated record"
       "OUT=347194 points in" "ERR=simlod-demo: error: '.*b2.sim'"
       "ERR=[0-9]+ points of '.*b2.sim' loaded before the error stay" EXISTS=<WORK>/final-overview.png
  STEP demo <WORK>/tiles --backend cpu --width 64 --height 48 -o <WORK>/quiet -q RC=1
       "ERR=simlod-demo: '.*b2.sim' ends with a truncated record"
       "ERR=simlod-demo: error: '.*b2.sim'")
simlod_tool_test(tool_demo_errors
  STEP demo --points 1000 --backend cpu --width 16 --height 16 --stats /dev/full -o <WORK>/x RC=1
       "ERR=/dev/full': cannot write the statistics: No space left on device"
  STEP demo --points 100 --backend gpu RC=1 "ERR=^simlod-demo: error: .*gpu"
  STEP demo --points 100 --backend cpu --order zigzag RC=1 "ERR=--order must be scan or morton"
  STEP demo <WORK>/nothing-here RC=1 "ERR=no such file or folder"
  STEP demo <WORK>/nothing-here --bulk RC=1 "ERR=no such file or folder"
  STEP demo --points 100 --backend cpu --sampling mean RC=1
       "ERR=^simlod-demo: error: unknown sampling 'mean' .use first, random, average, weighted."
  STEP demo --points 100 --backend cpu --bulk --sampling mean RC=1
       "ERR=^simlod-demo: error: unknown sampling 'mean' .use first, random, average, weighted.")
simlod_tool_test(tool_demo_ply
  STEP demo <SRC>/data/tiny.ply --backend cpu --width 32 --height 32 -o <WORK>/p
       "OUT=3 points in" EXISTS=<WORK>/p-closeup.png)

# simlod-compare: a table of PSNR and SSIM per view and filter, the JSON file and the PNGs;
# small leaves give the small scenes a tree with voxels in view.
simlod_tool_test(tool_compare_synthetic
  STEP compare --synthetic 20000 --backend cpu --width 64 --height 48 --views 1
       --leaf-points 500 -o <WORK>/c --json <WORK>/c.json
       "OUT=^simlod-compare: 20000 points .synthetic town, seed 1., cpu backend, 64x48, LOD 64"
       "OUT=background rgb.24, 26, 32."
       "OUT= +first +random +average" "OUT=view +PSNR +SSIM +PSNR +SSIM +PSNR +SSIM"
       "OUT=closeup 0 +[0-9inf.]+ [01]\\.[0-9]+ +[0-9inf.]+ [01]\\.[0-9]+ +[0-9inf.]+ [01]\\.[0-9]+"
       "OUT=zoomedout 0 +[0-9inf.]+ [01]\\.[0-9]+ +[0-9inf.]+ [01]\\.[0-9]+ +[0-9inf.]+ [01]\\.[0-9]+"
       "OUT=mean closeup +[0-9inf]" "OUT=mean zoomedout +[0-9inf]"
       EXISTS=<WORK>/c.json EXISTS=<WORK>/c-closeup0-first.png
       EXISTS=<WORK>/c-closeup0-random.png EXISTS=<WORK>/c-closeup0-average.png
       EXISTS=<WORK>/c-zoomedout0-first.png EXISTS=<WORK>/c-zoomedout0-average.png
  STEP cmake -E cat <WORK>/c.json "OUT=\"points\": 20000,"
       "OUT=\"modes\": .\"first\", \"random\", \"average\".,"
       "OUT=\"ssim\": {\"window\": 11, \"sigma\": 1.5, \"k1\": 0.01, \"k2\": 0.03"
       "OUT=\"background\": .24, 26, 32.," "OUT=\"lod\": 64,"
       "OUT=\"kind\": \"zoomedout\", \"index\": 0, \"scores\": {\"first\": {\"psnr\": "
  STEP compare --scene exposure --points 20000 --backend cpu --width 64 --height 48 --views 1
       --sampling average,first --no-images -o <WORK>/e "OUT=20000 points .exposure scene"
       "OUT= +average +first" ABSENT=<WORK>/e-closeup0-first.png)
# --builder both: every filter from Octree::build and from batches (insert, update, finalize);
# the trees are the same, so are the scores of every filter but first-come.
simlod_tool_test(tool_compare_builders
  STEP compare --scene exposure --points 20000 --backend cpu --width 64 --height 48 --views 1
       --leaf-points 500 --sampling random,average,weighted --builder both --batch 3000
       --no-images -o <WORK>/b --json <WORK>/b.json "OUT=builder: bulk .Octree::build."
       "OUT=builder: incremental .Octree::create, insert and update per batch of 3000 points"
       "OUT= +random +random-incremental +average +average-incremental +weighted +weighted-incremental"
       "OUT=zoomedout 0 +[0-9]+\\.[0-9]+ [01]\\.[0-9]+ " ABSENT=<WORK>/b-closeup0-random.png
  STEP cmake -E cat <WORK>/b.json "OUT=\"builders\": .\"bulk\", \"incremental\".,"
       "OUT=\"batch\": 3000," "OUT=\"modes\": .\"random\", \"random-incremental\", \"average\","
  STEP cmake -DJSON=<WORK>/b.json -DFILTERS=random,average,weighted -P <SRC>/same_scores.cmake
       "OUT=12 scores: the incremental builder's equal the bulk builder's"
  STEP compare --synthetic 20000 --backend cpu --width 64 --height 48 --views 1
       --leaf-points 500 --sampling first --builder incremental -o <WORK>/i
       "OUT= +first-incremental" EXISTS=<WORK>/i-zoomedout0-first-incremental.png
       ABSENT=<WORK>/i-zoomedout0-first.png)
simlod_tool_test(tool_compare_errors
  STEP compare <WORK>/missing.las RC=1
       "ERR=^simlod-compare: error: '.*missing.las': no such file or folder"
  STEP compare --synthetic 100 --sampling first,mean RC=1
       "ERR=^simlod-compare: error: unknown sampling 'mean' in --sampling .use first, random, average, weighted."
  STEP compare --synthetic 100 --views 0 RC=1 "ERR=^simlod-compare: error: --views must be at least 1"
  STEP compare --synthetic 100 --scene exposure RC=1 "ERR=^simlod-compare: error: give one of"
  STEP compare --synthetic 100 --backend gpu RC=1 "ERR=^simlod-compare: error: .*gpu"
  STEP compare --scene sideways RC=105 "ERR=--scene: sideways not in"
  STEP compare --synthetic 100 --builder sideways RC=1
       "ERR=^simlod-compare: error: unknown builder 'sideways' in --builder .use bulk, incremental or both."
  STEP compare --synthetic 100 --builder incremental --batch 0 RC=105 "ERR=--batch: Value 0 not in range")

# simlod-ground: classes in the records, the DTM as ESRI grid, PNG and GeoTIFF; bad input.
simlod_tool_test(tool_ground_las NEEDS_DATA
  STEP ground <DATA>/haystack_rock.las <WORK>/g.las --hillshade <WORK>/g.png --backend cpu
       "OUT=haystack_rock.las -> .*g.las: 21932 points \\(0 noise or withheld, ignored\\), [0-9]+ ground"
       "OUT=CRS EPSG:3645" "OUT=windows [0-9]+ x [0-9]+" EXISTS=<WORK>/g.dtm.asc EXISTS=<WORK>/g.png
  STEP info <WORK>/g.las "OUT=crs +EPSG:3645" "OUT=2 ground: [0-9]+" "OUT=1 unclassified: [0-9]+"
       "OUT=record length +20 bytes"
  STEP ground <DATA>/haystack_rock.las <WORK>/h.las --hag --backend cpu -q
  STEP info <WORK>/h.las "OUT=record length +24 bytes" "OUT=extra +height above ground"
       "OUT=LASF_Spec 4 \"Extra Bytes Record\" \\(192 bytes\\)" "OUT=crs +EPSG:3645")
simlod_tool_test(tool_ground_synthetic
  STEP convert --synthetic 200000 <WORK>/s.las --quiet
  STEP ground <WORK>/s.las <WORK>/out.las --ascii <WORK>/dtm.asc --json <WORK>/g.json -q
       EXISTS=<WORK>/dtm.asc EXISTS=<WORK>/g.json
  STEP info <WORK>/out.las "OUT=points +200000[^0-9]" "OUT=2 ground: [0-9]+")
# Lengths follow the CRS's units (tools/data/feet.las: EPSG:2270, GeoKey 3076 = foot); a
# geographic CRS (tools/data/geographic.las: EPSG:4326) is refused.
simlod_tool_test(tool_ground_units
  STEP ground <SRC>/data/feet.las <WORK>/f.las --backend cpu
       "OUT=CRS EPSG:2270 \\(0.3048 m per unit\\): window 32.8084, step 6.56168, gap cell 65.6168"
  STEP ground <SRC>/data/feet.las <WORK>/n.las --backend cpu --native-units "OUT=window 10, step 2,"
  STEP ground <SRC>/data/geographic.las <WORK>/g.las RC=1
       "ERR=^simlod-ground: error: .*geographic.las: its coordinate reference system \\(EPSG:4326\\) is geographic"
       ABSENT=<WORK>/g.las ABSENT=<WORK>/g.dtm.asc)
simlod_tool_test(tool_ground_bad_input
  STEP ground <SRC>/data/tiny.ply <WORK>/out.xyz RC=1
       "ERR=^simlod-ground: error: .*out.xyz: the output must be a .las or .laz file"
  STEP ground <SRC>/data/tiny.ply <WORK>/out.las RC=1
       "ERR=^simlod-ground: error: .*fewer than one window needs" ABSENT=<WORK>/out.las
       ABSENT=<WORK>/out.dtm.asc)
if(TARGET GDAL::GDAL)
  simlod_tool_test(tool_ground_geotiff NEEDS_DATA
    STEP ground <DATA>/haystack_rock.las <WORK>/g.las --dtm <WORK>/dtm.tif --backend cpu
         "OUT=dtm.tif \\(EPSG:3645" EXISTS=<WORK>/dtm.tif)
endif()

# simlod-visibility: the bunny's map with estimated normals, saved, loaded again for another
# eye, as JSON; bad requests.
simlod_tool_test(tool_visibility_bunny NEEDS_DATA
  STEP visibility <DATA>/bun_zipper.ply --height 6 --leaf-points 32 -o <WORK>/v --backend cpu
       "--eye=-0.2,0.15,0.15"
       "OUT=bun_zipper.ply \\(estimated normals\\) -> .*v.vmap, .*v.png"
       "OUT=35947 points, [0-9]+ nodes, [0-9]+ leaves" "OUT=leaf pairs: [0-9]+ in all"
       "OUT=[1-9][0-9]* points see the eye" EXISTS=<WORK>/v.vmap EXISTS=<WORK>/v.png
  STEP visibility <DATA>/bun_zipper.ply --map <WORK>/v.vmap -o <WORK>/w --backend cpu --json
       "--eye=0.2,0.15,0.15" "OUT=^{\"points\": 35947, " "OUT=\"links_per_level\": .0, 0, "
       EXISTS=<WORK>/w.png ABSENT=<WORK>/w.vmap
  STEP visibility <DATA>/bun_zipper.ply --height 17 -o <WORK>/x RC=1
       "ERR=^simlod-visibility: error: VisibilityMap: height 17. it takes 1 to 16"
       ABSENT=<WORK>/x.vmap)
simlod_tool_test(tool_visibility_bad_input
  STEP visibility <SRC>/data/tiny.ply --eye 1,2 -o <WORK>/v RC=1
       "ERR=^simlod-visibility: error: --eye '1,2': give x,y,z"
  STEP visibility <SRC>/data/tiny.ply -o <WORK>/v RC=1
       "ERR=^simlod-visibility: error: estimate_normals: 3 points for 16 neighbours each"
       ABSENT=<WORK>/v.vmap ABSENT=<WORK>/v.png
  STEP visibility <SRC>/data/tiny.ply --matrix-mib 0 -o <WORK>/v RC=105
       "ERR=--matrix-mib: Value 0 not in range 1 to " ABSENT=<WORK>/v.vmap)
