from hvnet.cli import main

main()
