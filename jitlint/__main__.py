from jitlint.cli import main

raise SystemExit(main())
