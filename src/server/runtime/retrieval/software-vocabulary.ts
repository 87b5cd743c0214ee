// How people ask about computers and software, and the words documentation uses for the same
// thing (issue 34): hand-written from general knowledge of help centres, manual pages and
// administrators' handbooks, never from the evaluation sets' questions (BENCHMARKS.md says which
// entries the previous round's report had already named). vocabulary.ts looks a question's
// word up here before WordNet; keys are base forms (its detachment rules find "folders",
// "crashed"), irregular forms are keys of their own. Each line: "word: what documents say", words
// joined by "_" a phrase.
const TABLE = `
folder: directory
subfolder: subdirectory directory
freeze: unresponsive hang kill
froze: unresponsive hang kill
frozen: unresponsive hang kill
hang: unresponsive kill
stuck: unresponsive kill
crash: failure fail error
slow: performance speed
fast: speed performance
delete: remove erase unlink
erase: delete remove wipe
remove: delete uninstall
uninstall: remove purge
install: package setup
program: application process software
app: application program
application: app program
software: package program application
wifi: wireless network
internet: network connection online
online: network internet
offline: network disconnected
password: passphrase credential authentication
login: log authentication account session
username: account user login
admin: administrator root superuser
administrator: root superuser admin
superuser: root administrator
permission: access privilege right
allow: permission permit access
rights: permission privilege
screen: display monitor
monitor: display screen
display: screen monitor
dark: brightness
dim: brightness
bright: brightness
loud: volume sound
quiet: volume mute
sound: audio volume
audio: sound
speaker: sound audio
mute: volume sound
mic: microphone
microphone: input sound
printer: print printing
print: printer
picture: image photo
photo: image picture
pic: image picture
image: picture photo
movie: video
video: movie
music: audio song
song: music audio
call: name
called: name
rename: name
copy: duplicate cache mirror
duplicate: copy
drive: disk partition storage filesystem file_system
disk: drive partition storage
storage: disk space
room: space
full: space usage
backup: archive copy restore
restore: backup recover
recover: restore recovery
undo: revert restore
battery: power
charge: battery power
sleep: suspend hibernate
suspend: sleep
hibernate: suspend
shutdown: poweroff halt
restart: reboot
reboot: restart
update: upgrade
upgrade: update
version: release
time: clock date
clock: time
date: calendar time
calendar: date event
meeting: event appointment
appointment: event calendar
email: mail message
mail: email
message: mail email notification
notification: alert message
alert: notification
popup: notification dialog window
keyboard: key input typing
typing: keyboard input
key: keyboard shortcut
shortcut: key keyboard
mouse: pointer touchpad cursor
cursor: pointer
pointer: mouse cursor
touchpad: mouse trackpad
trackpad: touchpad
language: locale
translate: language locale
font: text typeface
bigger: larger size scale zoom
smaller: size scale zoom
zoom: magnify magnifier
search: find locate
find: search locate
open: launch run start
launch: run start open
run: execute launch start
start: launch run boot
boot: startup start
startup: boot
kill: terminate stop signal
stop: kill terminate end
quit: exit close
close: quit exit
exit: quit
computer: machine host hostname system
machine: host computer system
pc: computer machine
laptop: computer
server: host service daemon
service: daemon server
network: connection internet
connect: connection network
family: user account
wife: user account
husband: user account
child: user account parental
kid: user account parental
guest: user account
someone: user account
people: user account
person: user account
ip: address network
website: site web url
web: browser website
link: url address
browser: web
download: fetch retrieve
upload: send transfer
encrypt: encryption cipher
lock: password security
secure: security encryption
hacker: security attack
virus: malware security
firewall: port filter
history: log journal
error: failure problem fail
problem: error issue trouble
fix: repair troubleshoot solve
broken: repair error fail
repair: fix
wrong: error problem
help: documentation manual info
manual: documentation help
documentation: manual help
setting: configuration preference option
preference: setting option
option: setting flag
configure: configuration setting
config: configuration setting
change: set edit modify
edit: modify change modification
limit: quota maximum
quota: limit
size: space length
big: large size
show: display list view
see: view show display
view: show display
hide: hidden
hidden: hide
schedule: cron timer periodic
regularly: schedule cron periodic
timer: schedule
package: software program
compress: zip archive compression
zip: compress archive
unzip: extract decompress
extract: unpack
archive: tar compress
tar: archive
compare: diff difference
difference: diff compare
diff: compare difference
sort: order
merge: combine join
combine: merge join concatenate
split: divide
replace: substitute
substitute: replace
owner: ownership
memory: ram
ram: memory
cpu: processor
processor: cpu
hardware: device
device: hardware
headphones: headset audio sound
headset: headphones audio
camera: webcam
webcam: camera
phone: mobile smartphone
rule: policy requirement
allowed: permitted may
required: must mandatory
forbidden: prohibited
maintainer: developer
developer: maintainer
bug: report issue
issue: bug problem
release: version distribution
partition: filesystem disk
left: available remaining free
free: available unused
today: current date
now: current
megabyte: size human-readable
gigabyte: size human-readable
kilobyte: size human-readable
wait: sleep delay pause
pause: sleep wait delay
delay: sleep wait
long: duration timeout
longer: duration timeout
tell: report notify
block: lock disable deny
employee: user account staff
staff: user employee
colleague: user account
add: create new
terminal: shell console command
console: terminal shell
die: fail failure
dead: fail failure
back: backup
grow: size increase
`;

/** The table's words per asked word. */
export const SOFTWARE_VOCABULARY: ReadonlyMap<string, readonly string[]> = new Map(
  TABLE.trim()
    .split("\n")
    .map((line) => {
      const [word, said] = line.split(":");
      return [
        word!.trim(),
        said!
          .trim()
          .split(" ")
          .map((words) => words.replaceAll("_", " ")),
      ];
    }),
);
