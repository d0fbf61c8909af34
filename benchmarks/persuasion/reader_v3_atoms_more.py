"""More hand-written atoms of the v3 reader's training set: the second round of issue 39.

The first round (:mod:`~benchmarks.persuasion.reader_v3_atoms_pitch`, :mod:`~benchmarks.persuasion.reader_v3_atoms_other`)
left two gaps that the retired evaluation set showed: hostile lines in constructions no frame holds (unlisted insults,
invented compounds, contempt, sarcasm, threats and ultimatums) read as ``nothing`` or as a pitch, and genuine pitches in
terse, indirect or unusual wording read as ``nothing``. These blocks fill them with new phrasings, written for this
round in words of their own (no line copied from the retired set), plus hard negatives: teasing, self-mockery,
insult look-alikes and plain disagreement that are not hostile, and negated or nonsensical lines that stay ``nothing``.

Blocks of ``<concern> | <text>`` lines (``-``: no concern), or one text a line; composed by
:mod:`benchmarks.persuasion.reader_v3_corpus` (``more_lines``).
"""

from __future__ import annotations

#: pitches in new wordings: terse, long, questions that carry the principle, indirect and casual
PITCHES_MORE: dict[str, str] = {
    "reciprocity": """
- | I'll owe you one.
- | My treat.
- | Drinks are on me afterwards.
- | You scratch my back, I'll scratch yours.
- | Return the favour?
- | After all the lifts I've given you, one Saturday isn't much to ask, is it?
- | Who fed your cat for a fortnight last summer?
- | Remember who helped you revise for your driving theory?
cost | We'll pay for your parking if you come.
cost | Members get a free tote bag as our thanks.
cost | Every donor gets a little thank-you hamper.
- | I'll babysit on Friday if you come with me on Thursday.
- | I'll cook dinner all week if you book it.
- | Help me at the stall and the next round of coffees is mine.
- | I helped you paint the nursery; help me paint the scout hut.
- | Come along and I'll teach you to bake that bread you liked.
- | I'll cover your half of the petrol.
cost | They're giving away a free sample pack to everyone who tries it.
- | You can have my season ticket for a match if you give it a go.
- | I went to your boring work party, so you can come to my quiz night.
- | I did your tax return for you in April, just saying.
- | Think of it as me cashing in that favour.
- | Consider us even if you come.
- | I've always been there when you needed a hand; now I need one.
- | Who drove you to A and E at two in the morning?
- | We gave you the first month free, so why not stay on?
- | I'll swap you a Sunday lie-in for a Saturday run.
- | Sign the petition and I'll sign your sponsorship form.
- | Fair's fair, I did the washing-up all week.
- | gimme a hand with this and ill sort your bike out, promise
- | You owe me a favour, remember the flat move?
- | Quid pro quo: you come to the class, I walk the dog all week.
- | I lent you my tent for Glastonbury, so lend me your Saturday.
- | I'll return the kindness any time you like.
- | Our thanks for joining: a year's free entry to the museum.
- | In exchange, I'll proofread your dissertation.
- | The food bank gave your mum a hand last winter; they could use yours now.
- | I'd do the same for you in a heartbeat, and I have done.
""",
    "scarcity": """
timing | Nearly sold out.
timing | Selling fast.
timing | Ends at midnight.
timing | Two left.
timing | Final call.
timing | Now or never.
- | Only a dozen were ever made.
- | Once it's gone, it's gone for good.
timing | The sale stops on Sunday, so don't wait.
timing | Seats are disappearing by the hour.
timing | The waiting list closes once it hits fifty names.
timing | There's one slot left on Tuesday and it won't last.
- | Such a rare find, you hardly ever see them.
- | They discontinued the model, so these are the last ones anywhere.
timing | Spring is the only time they run the beginners' group.
timing | By Friday the cheaper tickets will be gone.
timing | Did you hear there are only four places left on the retreat?
timing | Isn't it a shame to miss the last course before they scrap it?
- | Hen's teeth, these are.
timing | Grab one while you still can.
timing | Stock is running low and there's no restock planned.
timing | It's a one-night-only show.
timing | The deal's gone tomorrow.
timing | The final few pairs are on the shelf now.
- | Limited edition, numbered, never to be reprinted.
timing | Only the first twenty sign-ups get a place.
timing | The volunteer rota fills in a day, every year.
timing | Doors shut at nine and they don't let latecomers in.
timing | hurry, almost none left!!
timing | This price won't be around much longer.
timing | They only open enrolment twice a year, and this is one of them.
timing | The ballot closes at noon, so get your name down.
- | There are far fewer places than people who want them.
timing | Once this batch is sold there won't be another till next year.
- | A chance like this doesn't come round twice.
timing | It's the last season they're running it.
""",
    "consensus": """
- | Everybody's doing it.
- | All the rage.
- | A crowd favourite.
- | Thousands have already signed.
- | Hugely popular round here.
- | Most people on your course have booked already.
- | Nine out of ten users would recommend it.
- | The whole choir's going, every last one.
- | Three hundred people turned up last year.
- | Nearly every parent at the school gate has joined.
- | It's the most downloaded app of its kind.
- | Your mates from football are all in.
- | Didn't you see that half the street has solar panels now?
- | Isn't everyone in your year doing the charity walk?
- | Over a million people use it every week.
- | The reviews are glowing, hundreds of them.
- | Your sister, your cousins and both your neighbours have had theirs.
- | It's what most people your age are choosing now.
- | Most of the team voted for it.
- | Loads of folks from work go every Thursday.
- | It's the town's best-selling bike this year.
- | People keep telling me how much they love it.
- | The class is packed every single week.
- | Every other household on the estate recycles now.
- | Practically all our friends have switched.
- | Top-rated by the people who bought it.
- | literally everyone at uni is doing it
- | Most commuters on your line already use the card.
- | Other parents say their kids loved the club.
- | More and more people are signing up every month.
- | The majority of residents backed the scheme.
- | Just about the whole village turned out for the clean-up.
- | All the regulars swear by the early session.
- | Join the thousands who already give monthly.
- | The group chat is full of people who've done it.
- | Most new starters pick this option.
""",
    "authority": """
- | Doctor's orders.
- | Expert-approved.
- | Clinically tested.
- | Dentists recommend it.
- | Backed by the science.
- | My GP swears by it.
- | The NHS advises everyone over fifty to have it.
- | A nutritionist wrote the meal plan.
- | The head teacher herself recommended the club.
- | Our financial adviser says it's the sensible choice.
- | The fire brigade says every home should have one.
- | A Michelin-starred chef runs the class.
- | It was designed by sports scientists at Loughborough.
- | Researchers at Oxford found it halves the risk.
- | The consultant told me it's the best thing you can do.
- | The British Dental Association endorses it.
- | My professor, who literally wrote the textbook, says take the course.
- | According to the safety inspector, it's essential.
- | The pharmacist told me it's the one to get.
- | Haven't the doctors been saying this for years?
- | Didn't your cardiologist tell you to walk more?
- | Trust the vet, she knows what she's talking about.
- | It's the programme the Olympic team trains on.
- | The study in the Lancet backs it up.
- | Accredited by the Royal College.
- | The official guidance says get checked every year.
- | An architect looked at the plans and said it's sound.
- | My accountant, thirty years in the job, says do it now.
- | Approved by the Vegan Society.
- | The coach who trained the county team runs it.
- | The world health body recommends it for everyone.
- | Take it from a physio: stretch first.
- | Speaking as a qualified electrician, you need this fixed.
- | the dentist literally said you need it
- | Engineers rated it the safest on the market.
- | The guidance from the World Health Organisation is clear.
- | Specialists in the field all point the same way.
""",
    "commitment": """
- | You promised.
- | A deal's a deal.
- | Your words, not mine.
- | You said you would.
- | You've started, so finish.
- | You already paid the deposit.
- | You're halfway there already.
- | You signed up in January, remember?
- | Didn't you tell me you wanted to learn Spanish?
- | Weren't you the one who said we should all vote?
- | You've always said health comes first.
- | You told the whole table you'd run the marathon.
- | You've done two sessions; don't stop now.
- | You put your name on the list yourself.
- | Last week you said yes, so I'm holding you to it.
- | You care about the planet, you've told me so a hundred times.
- | You're someone who keeps their word.
- | You made a new year's resolution about exactly this.
- | You've already filled in half the form.
- | You wrote it on the calendar.
- | Isn't this what you said you'd do once the kids started school?
- | You pledged twenty quid at the meeting.
- | Keep the streak going, you're on day twelve.
- | You're a volunteer at heart, you always have been.
- | Stay true to what you told us at dinner.
- | You agreed to it on the phone yesterday.
- | It was your idea in the first place.
- | you said ud come, so come
- | You've been a member for ten years; don't break the habit now.
- | You told your daughter you'd be there.
- | You believe in fairness, so sign it.
- | As someone who's always backed the local shops, you'd want this.
- | You booked the first lesson, so go to the second.
- | You gave me your word on Friday.
- | You've said for ages you wanted to get fitter.
""",
    "liking": """
- | You're a gem.
- | Love you, mate.
- | You're the best.
- | You light up every room.
- | We're two peas in a pod.
- | You're my favourite person to do things with.
- | You've got such a kind heart.
- | Honestly, you're brilliant at this sort of thing.
- | I'd love to have you there, you always make it fun.
- | You're so easy to talk to, people would adore you there.
- | Us early risers have to stick together.
- | Fellow Northerner, you'll feel at home.
- | We're both bookworms, so the library club is made for us.
- | You've got a gift with kids.
- | You're the funniest person I know.
- | Don't you know how much I like spending time with you?
- | Wouldn't it be lovely to do it together, just us two?
- | You're one of the good ones.
- | What would I do without you?
- | You're such a natural with people.
- | Everything's more fun when you're around.
- | I've always admired how generous you are.
- | Someone as thoughtful as you would be perfect for it.
- | You're the kindest neighbour anyone could ask for.
- | You and me, same team, always.
- | As fellow cyclists, we should do the charity ride together.
- | I really value our friendship.
- | ur the best, come with me?
- | You're a superstar, honestly.
- | You've got great taste, so you'll love it.
- | I'd feel so much braver with you beside me.
- | You're so talented, it'd be a crime not to show it.
- | Your cooking is the best I've ever had; the bake sale needs you.
- | You always know just what to say.
- | I trust you more than anyone.
- | We've been friends for twenty years, you and I.
- | Being with you always cheers me up.
""",
}

#: no reason: small talk, questions, plain requests, negated or denied principles, nonsense with cue words
NOTHING_MORE = """
- | How was your weekend?
- | Did you see the match last night?
- | Pass the salt, would you?
- | I'm off to the shops, need anything?
- | What do you fancy for tea?
- | Just come, please.
- | Will you do it?
- | Go on, sign up.
- | Please think about it.
- | Can we talk about the gym thing?
- | I'd like you to come.
- | What do you reckon?
- | Let me know by Friday.
- | Here's the link.
- | The form is on the table.
- | It starts at seven.
- | The gym is on the corner of Mill Road.
- | It's a yoga class.
- | You'd need trainers and a water bottle.
- | Have you had lunch?
- | The kettle's just boiled.
- | Sorry I'm late.
- | Any plans for the summer?
- | I'm not sure it's for everyone.
- | Think it over and tell me.
- | Hmm.
- | Okay then.
- | Fine, suit yourself.
- | Whatever you decide is fine by me.
- | No pressure at all.
- | I'm not going to pretend it's popular.
- | Honestly, hardly anyone goes.
- | No expert has ever backed it.
- | I can't say the doctors agree.
- | It isn't rare at all; they have loads.
- | There's no rush, it runs all year.
- | I don't owe you anything and you don't owe me.
- | You never promised anything, so don't feel bound.
- | Don't do it just to please me.
- | It's not about what your friends think.
- | Forget the experts for a second.
- | I'm not flattering you to get a yes.
- | No one's saying you agreed to it.
- | Whether it's popular doesn't matter.
- | Ignore the reviews; make up your own mind.
- | It's not a limited offer or anything.
- | Nobody's keeping score.
- | The scientist jumped over the purple refund.
- | Everyone spoon the doctor of Tuesdays.
- | Limited bicycle expert sings yesterday.
- | Promised window the favour upside of blue.
- | Frindle experts glarp the last chance.
- | Popular popular popular the the.
- | Doctors recommend recommend.
- | Scarce wibble friends lorp.
- | Zonk the everyone bleem.
- | Deadline marmalade, authority of socks.
- | Lovely flumph you promise zib.
- | Mentor gravel reciprocal moon.
- | What time does it finish?
- | Is there parking?
- | Who else is going?
- | How much is it?
- | Do I need to bring anything?
- | Does it hurt?
- | How long does it take?
cost | How much does it cost, roughly?
timing | When does it start?
effort | Is it a lot of work?
- | I disagree, but that's fine.
- | I think you're wrong about this, honestly.
- | We see it differently, and that's okay.
- | I'm a bit disappointed, to be honest.
- | That's not quite right; the class is on Tuesdays.
- | I'd rather you didn't, actually.
"""

#: several principles in one line
STUFFED_MORE = """
- | Everyone's going and there are only ten tickets.
- | The doctor recommends it, and you did promise.
- | I covered for you last week, and besides, the whole office is going.
- | You're lovely and the offer ends tonight.
- | Experts back it and millions use it.
- | You promised me, and I did help you move.
- | It's popular, it's proven and it's nearly gone.
- | Trusted by doctors, loved by millions.
- | Your friends are all in and you told me you wanted to be.
- | A top physio designed it, and you're just the sort of lovely person it suits.
- | Last few places, and the dentist says you need it.
- | I'll buy lunch, and everybody else has signed anyway.
- | You always keep your word, and the deadline's Friday.
- | You're a star; plus the experts say it works.
- | Bestseller, award-winning, limited stock.
- | Half the gym does it, the coach rates it, and you said you'd try.
- | As your friend who drove you home, and as a nurse, I'm begging you.
- | You said you cared about this, and only five spots remain.
- | We're mates, and everyone else on the team has done it.
- | Free gift for joining, and it closes at midnight.
- | Scientists agree, your neighbours agree, and I'll even pay your ticket.
- | you promised AND its the last day AND everyones going lol
"""

#: hostile lines written whole, in many words: insults, belittling, mockery, sarcasm, threats and coercion
HOSTILE_MORE = """
Even a halfwit could manage this.
Even a trained monkey could fill in that form.
Even a houseplant would have signed up by now.
A toddler with a crayon could do it, so what's your problem?
My dog understands this better than you.
Honestly, a potato would make better decisions.
You absolute walnut.
You utter waste of a Saturday.
You complete and total bell-end.
You gormless lump of lard.
What a sorry excuse for a friend you are.
What a spineless little worm.
Look at you, a couch-dwelling slug.
You sofa-welded sloth, get up.
You spreadsheet-brained bore.
You lazy lump.
You useless article.
Congratulations, you've managed to be wrong again.
Clearly you're the world's leading expert on everything.
Oh, forgive me, I forgot you know everything.
Sure, because your gut feeling beats thirty years of research.
Great plan, genius, wait until it's all gone.
Well done, Einstein, you missed it again.
Keep waiting, your highness, I'm sure they'll hold a place just for you.
Oh yes, the famous expert on absolutely nothing has an opinion.
I'm sure the entire medical profession is wrong and you're right.
Bravo, another weekend on the sofa, what an achievement.
How nice for you, being too important to help.
You must be so proud of doing nothing all year.
Pathetic.
Pitiful, really.
Useless, as always.
Spineless.
Clueless, the lot of you, but you most of all.
Grow a spine and sign it.
Man up and get on with it.
Stop being such a wet blanket and come.
Quit your snivelling and book the appointment.
You're a joke.
You're an embarrassment.
You're a laughing stock.
You're a lost cause.
You're a waste of my time.
You're dead weight on this team.
You're thick as mince.
You're as sharp as a beach ball.
You've got the brains of a bag of spanners.
You've got the spine of a jellyfish.
You've got the attention span of a gnat.
There's nothing going on upstairs with you, is there?
Is there anything between your ears at all?
Did your brain fall out on the way here?
Were you dropped on your head as a baby?
How do you even get dressed in the morning?
Honestly, how do you function?
I've seen smarter things growing on bread.
Talking to you is like explaining maths to a pigeon.
You have the charisma of a damp sock.
You couldn't find your way out of a paper bag.
Nobody wants you on the team anyway.
No wonder nobody invites you anywhere.
No wonder you've got no friends.
Nobody would miss you if you didn't come.
Everyone laughs at you behind your back, you know.
Your friends only put up with you out of pity.
Do us all a favour and keep quiet.
I don't know why I bother with someone like you.
You're not worth the effort.
You disgust me.
You make me sick.
I can't stand the sight of you.
Get out of my sight.
Sign it, or you'll be sorry.
Do it, or you'll regret it for a very long time.
Come tomorrow, or don't bother coming back at all.
Either you turn up on Saturday or you're off the team.
Either you pay up or I tell your wife.
Sign the petition, or that video goes online.
Donate, or I'll make sure everyone knows how tight you are.
Book it now, or I'll book your funeral.
Vote the right way, or you'll find your tyres flat.
You'll come to the gym, and you won't argue.
You'll do as I say.
You're going, end of discussion, and if you don't, you'll pay for it.
I won't ask twice.
I'd think very carefully before saying no to me.
You don't want to find out what happens if you refuse.
Nice car you've got; shame if something happened to it.
Lovely family; you'd want them kept safe, wouldn't you?
Say no, and your job goes with it.
Refuse, and I'll make your life hell.
Cross me on this and you'll live to regret it.
Keep ignoring me and see where it gets you.
Don't test me.
Don't push your luck.
You've been warned.
Sign it or lose your place; your call.
If you won't join, I'll tell the whole office about your little secret.
Do it now, or I'll stop covering for you and the boss will know everything.
Come with me or I'll never speak to you again, and I'll make sure the others don't either.
Oi, dumbo, the experts have said it a hundred times.
Listen, numbskull, the offer ends Friday.
Hey, dimwit, everyone else has already signed.
Right, pea-brain, you promised you'd come.
Look, fathead, I did you a favour, now do me one.
Oi, lardbucket, the gym's nearly full.
Listen, chuckle-brain, the doctors agree.
Big lump like you should be grateful anyone asks.
You muppet, the doctors have told you twice.
Absolute clown. The deadline was yesterday.
Total melt. Even your nan has signed.
Complete weapon. The experts are all for it.
Utter goon. Everyone's already going.
Proper wazzock, you said you'd come.
You thick plank, it closes tonight.
Only an absolute goblin would skip the vaccine.
Only a dribbling fool ignores the dentist.
You'd have to be a real dunderhead to miss this.
What sort of fossil still refuses to recycle?
Don't be such a drip; the whole class is going.
Stop being a limp lettuce and sign the form.
Any idiot can see the doctor's right.
Anyone with half a brain would take the free trial.
Anyone who isn't a complete dimwit can see it's a bargain.
Most people manage to keep a promise, but not you, obviously.
Everyone else managed it; what's your excuse, slowcoach brain?
Everyone else could do it without whining; why can't you?
The experts say it's easy, so even you can't mess it up.
The deadline is Friday, not that you can read a calendar.
Your neighbours have all signed, but I suppose thinking is hard for you.
I did you a favour, not that a leech like you would ever pay it back.
You said you'd come, but your word's worth nothing, is it?
You're supposed to be smart, aren't you? Then act like it.
Imagine being this scared of a spin class.
Imagine needing a doctor to tell you to brush your teeth.
What are you, five?
Are you stupid or just pretending?
Are you thick or something?
Do you ever use that head for anything but a hat rack?
Try engaging your brain for once.
Put your brain in gear for once.
Use the two brain cells you've got.
Think, for once.
Step one: stop being an idiot.
Newsflash, genius, the place fills up.
Breaking news: the slacker has an opinion.
Thanks for nothing, as usual.
Typical you, letting everyone down again.
Of course you'd bottle it, you always do.
Why am I not surprised you chickened out?
Some friend you are.
Call yourself a friend?
With friends like you, who needs enemies?
You wouldn't know a good deal if it bit you.
You wouldn't recognise good advice if it slapped you.
"""

#: frames for hostility in new constructions: {n} an insult noun, {a} an adjective, {c} a principle clause,
#: {q} a request, {t} a threat's consequence
HOSTILE_FRAMES_MORE = """
Even a {n} could see that {c}.
{C}, you {a} {n}.
{C}, so what's your excuse, {n}?
Absolute {n}. {C}.
{A} {n}: {c}.
Oi, {n}, {c}.
Listen, you {n}, {c}.
You {n}, {c}.
{C}. Honestly, what a {a} {n} you are.
{C}, but you're too much of a {n} to notice.
{Q}, you {a} {n}.
{Q} or {t}.
{Q}, or {t}.
Either you {q} or {t}.
{C}, so {q}, or {t}.
{C}; {q} or {t}.
If you don't {q}, {t}.
{Q}. If you refuse, {t}.
Sure, ignore that {c}, you clearly know best.
Oh, of course, {c}, but what would they know compared with you?
{C}, not that a {n} like you would care.
Only a {n} would ignore that {c}.
What kind of {a} {n} ignores that {c}?
Don't be a {n}: {c}.
"""

#: the consequences of threats and ultimatums (completing "or ...", "if you don't ..., ...")
THREAT_TAILS = """
you'll be sorry
you'll regret it
you'll wish you had
I'll tell everyone what you did
that photo goes in the group chat
you can find another lift to work
you're off the team
you can forget about your bonus
I'm telling your mum
I'll make your life miserable
I'll make sure you never work here again
you can kiss your deposit goodbye
don't bother calling me again
you'll find out what happens
things will get very unpleasant for you
I'll let the whole street know you're a cheapskate
the boss hears about your long lunches
you're out of the flat
"""

#: more invented and unlisted insult nouns: compounds and ordinary words used as insults
INSULT_NOUNS_MORE = """
couch-barnacle
sofa-slug
pudding-head
dunderhead
nitwit
goblin
fossil
drip
slug
mug
melt
goon
weapon
clown
div
dipstick
dingus
tosspot
numbskull
lemon-brain
cheeseball
space cadet
sad sack
wet wipe
bin lid
knucklehead
muttonhead
plank
dweeb
lardbucket
mouth-breather
waste of oxygen
sponge-brain
tin-pot tyrant
tree stump
sack of potatoes
"""

INSULT_ADJECTIVES_MORE = """
dribbling
blithering
brainless
witless
dim-witted
simple
sad little
pathetic little
useless great
lazy good-for-nothing
mouth-breathing
half-baked
two-faced
snivelling
stuck-up
"""

#: not hostile though it looks it: teasing, self-mockery, insult look-alikes, firm but friendly, plain disagreement;
#: labelled by the reason the line gives (``nothing`` when none)
NOT_HOSTILE_MORE = """
nothing | - | I'm such an idiot, I left the forms at home.
nothing | - | Silly me, I booked the wrong day.
nothing | - | I felt like a complete muppet at my first class.
nothing | - | I was useless at it when I started, honestly.
nothing | effort | The app is idiot-proof, so it only takes a minute.
nothing | - | That hill is a total beast, but the view's worth it.
nothing | - | The quiz last week was brutal.
nothing | - | The new spin instructor is a monster, in a good way.
nothing | - | This heatwave is killing me.
nothing | - | My boss is a nightmare this week.
nothing | - | The film was stupid but fun.
nothing | - | Don't be daft, you don't need to bring anything.
nothing | - | Don't be silly, it's no trouble at all.
nothing | - | Stop worrying, you'll be fine.
nothing | - | You're not stupid for being nervous.
nothing | - | Nobody will laugh at you there, I promise.
nothing | - | I think you're mistaken about the date; it's the twelfth.
nothing | - | I don't agree with you on this one.
nothing | - | We'll have to agree to disagree.
nothing | - | I'm a bit annoyed you didn't tell me.
nothing | - | Honestly, I'm frustrated, but I get it.
nothing | - | I won't take no for an answer, come on!
nothing | - | Come on, you, shake a leg.
nothing | - | Oi, you, get your coat, we're going.
nothing | - | You cheeky monkey, you ate the last biscuit.
nothing | - | You daft sausage, the bus goes from the other side.
nothing | - | You goose, it's on Thursday, not Tuesday.
nothing | - | You lazy bones, it's ten o'clock already, haha.
nothing | - | You pair of wallies, you've locked yourselves out again, lol.
nothing | - | Killer workout today, my legs are dead.
nothing | - | I'd kill for a cup of tea right now.
nothing | - | I'll murder you at squash, just you wait, haha.
nothing | - | That's a stupidly good price.
nothing | - | It's insanely easy to sign up.
nothing | - | The queue was ridiculous.
nothing | - | I'm begging you, just think about it.
pitch | liking | You cheeky devil, you're the best company, come with me.
pitch | liking | You daft thing, I'd be lost without you at the quiz.
pitch | liking | Oi, you big lump, I love you, come to the barbecue.
pitch | liking | You ridiculous human, you're my favourite person.
pitch | liking | You sweet idiot, you're the kindest soul I know.
pitch | liking | You absolute gem of a nutter, the team adores you.
pitch | liking | Come on, you legend, the club's not the same without you.
pitch | liking | It's no fun without you, you daft brush.
pitch | liking | You stubborn mule, I love you to bits, now come and see the nurse.
pitch | liking | You silly billy, you're great at this.
pitch | liking | Miss you loads, you muppet, come to the reunion.
pitch | authority | The surgeon was blunt: get it done.
pitch | authority | My no-nonsense doctor said I'd be mad not to.
pitch | consensus | Everyone thought it was brutal but they all loved it.
pitch | scarcity | Tickets are going like crazy.
pitch | reciprocity | I won't hear a word against it, dinner's on me.
"""

#: more pitches, written after a first look at how the second round read: indirect wordings of each principle
PITCHES_INDIRECT: dict[str, str] = {
    "reciprocity": """
- | Lunch is on me if you come along.
- | I'll get the tickets, you just turn up.
- | You can pay me back by coming to the fun run.
- | Let me buy you a coffee for your trouble.
cost | We'll cover the entry fee as a thank-you.
- | I'll take your bins out all month if you book the appointment.
- | You gave up your Saturday for my move; I'd like to give up mine for your project.
- | Bring the forms round and I'll cook you dinner.
cost | Everyone who donates gets a free pin badge from us.
- | Since you fixed my laptop, the least I can do is drive you there.
- | I'll chip in half if you sign up.
- | Take my spare ticket, and come to the talk with me in return.
""",
    "scarcity": """
timing | The boat only sails when the tide's right, and that's this Thursday.
timing | After this month the old price is history.
- | Few people ever get a chance like this.
timing | The organisers say it's the last time they're running it.
timing | If you wait, someone else will take your place.
timing | Rooms with a sea view get snapped up in minutes.
- | It's the only one of its kind in the county.
timing | Registrations are nearly full.
timing | Book soon, the dates fill up.
timing | They're pulling it from the menu next week.
- | Original copies are almost impossible to find now.
timing | The free places go to whoever asks first.
""",
    "consensus": """
- | Most people who try it keep going.
- | Your whole street's been to the new surgery.
- | The class has a waiting list because everyone loves it.
- | Loads of people your age have switched already.
- | It got rave reviews from the other parents.
- | I've not met anyone who regretted it.
- | The office has practically emptied for the charity run.
- | People queue for ages to get in.
- | Everyone I've asked says it's worth it.
- | Four thousand five-star ratings can't all be wrong.
- | The other volunteers said it was the best day of their year.
- | Most of the families on our road already give monthly.
""",
    "authority": """
- | The course is taught by a former Olympic coach.
- | A top cardiologist wrote the programme.
- | The guide is a qualified mountain leader.
- | It has the Fairtrade stamp and the Soil Association's approval.
- | The headmaster signed off on it personally.
- | My optician was adamant about it.
- | The manual from the manufacturer says service it every year.
- | A panel of judges named it the best in the region.
- | The midwife said it's the safest option.
- | Our IT security team says everyone has to update.
- | The recipe comes from a celebrated pastry chef.
- | The fitness instructor, who's trained athletes, says start slow.
""",
    "commitment": """
- | You've already done the hard part by registering.
- | Last year you told everyone you'd do it this year.
- | You're the one who wanted this, remember.
- | You always say you want to give back.
- | You've been saving up for exactly this.
- | You ticked the box saying you'd volunteer.
- | You already bought the kit.
- | Didn't you say this was your year?
- | You care about your health, you've said it often enough.
- | You've come this far, don't throw it away.
- | You put your hand up at the meeting.
- | You're the kind of person who finishes what they start.
""",
    "liking": """
- | You'd smash it, you're so good with people.
- | With your eye for detail you'd nail it.
- | Someone as quick as you would pick it up in a day.
- | You're a natural, honestly.
- | I always feel better after seeing you.
- | It's you and me against the world.
- | We're both night owls, so the late class suits us.
- | You've got the best laugh; the choir would love you.
- | A people person like you would shine there.
- | I can't imagine doing it with anyone else.
- | You're my rock.
- | With your brains, you'd ace the course.
""",
}

#: more hard negatives: self-mockery, harsh-sounding harmless words, warm lines that are not hostile (``nothing``)
NOT_HOSTILE_SELF = """
I'm hopeless with forms, so I asked the receptionist to help.
I'm an idiot, I left my phone on the bus.
Dumb question, but does the class start at six or seven?
Stupid printer's jammed again.
I was a total wreck before my first session.
My brain's fried after today.
The instructions are foolproof.
Even I managed to set it up, and I'm useless with tech.
Call me lazy, but I'd rather drive.
I felt like a right clown in the warm-up.
What a nightmare of a commute.
It's a beast of a hill, but we'll walk it.
The last session absolutely killed me.
I'm dead on my feet.
My legs are jelly after that class.
It's crazy busy in town today.
The price is silly cheap.
Sorry, I'm being thick, which room is it?
I'm such a klutz, I spilled the coffee.
Ugh, I'm the worst at remembering dates.
"""

#: more nonsense that looks like English and carries cue words (``nothing``)
NONSENSE_MORE = """
The doctor purple sideways the furniture of last chance.
Experts banana gravel recommend.
Everyone spoons the seventh window of popular.
Limited carpet remember the expert of Thursday.
Favour the kettle under promise of the moon.
Scientists of soup only three left the staircase.
You promised the cloud a lovely ladder friendly.
Thousands orbit the deadline marmalade sideways.
Trust the dentist cheese tomorrow of elbow.
Rare blue friends sing the expert of doors.
The popular trumpet owes the spoon a favour.
Only the last toaster recommends everyone yesterday.
"""

#: harmless lines addressed to "you": questions, concern, advice, warmth without a principle (``nothing``); the
#: low hostile threshold must not read them as hostile
NOT_HOSTILE_YOU = """
You look tired, are you okay?
You sound a bit down today.
You seem busy, I'll ask later.
You have nothing to lose by asking.
Do you even like running? I never asked.
Your call, but I think you'd enjoy it.
Would it put your mind at rest to ring them first?
Are you sure you don't want to come?
Are you free on Sunday afternoon?
Have you made up your mind yet?
Do you need a lift there?
Do you want me to come with you?
Did you get my message about Saturday?
What's stopping you, do you think?
What would make it easier for you?
Is it the cost that worries you?
Is something putting you off?
You don't have to decide now.
You can always change your mind later.
You can bring your own mat if you like.
You might want a jacket, it gets cold up there.
If you're not sure, just come and watch.
If you hate it, you can leave at half time.
If it's not for you, no harm done.
You're welcome to bring your sister.
You'll need to fill in the form before the first session.
You won't need any special kit.
You should ask the front desk about parking.
Take your time, there's no rush.
Your health is your business, I just worry.
I know you're busy, so I'll keep it short.
I'm only asking because I care.
I get why you're nervous.
You're allowed to say no, you know.
You don't owe anyone an explanation.
Whatever you choose, I'm with you.
I hope you'll think about it.
Tell me what you think when you've read it.
Let me know if you have questions.
You left your scarf at mine, by the way.
Your train's at six, isn't it?
How's your knee doing?
How did your interview go?
You did the right thing asking.
You're going to need a bigger bag, haha.
Remind me, what time do you finish work?
You know where I am if you need me.
Sorry to nag you about it again.
You might find it's not as bad as you think.
"""
